from datetime import datetime

from common.helpers import OWNER
from airflow.sdk import DAG

with DAG("via_project_module", schedule="@daily", start_date=datetime(2024, 1, 1), tags=[OWNER]):
    pass
