from airflow.sdk import ToHourlyMapper

OWNER = "data"
