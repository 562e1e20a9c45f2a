from datetime import datetime

from airflow.sdk import DAG, ToHourlyMapper

with DAG("uses_other_sdk_name", schedule="@daily", start_date=datetime(2024, 1, 1)):
    pass
