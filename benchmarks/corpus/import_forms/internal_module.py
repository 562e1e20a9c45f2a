from datetime import datetime

from airflow._shared.not_there import helper
from airflow.sdk import DAG

with DAG("uses_internal_module", schedule="@daily", start_date=datetime(2024, 1, 1)):
    pass
