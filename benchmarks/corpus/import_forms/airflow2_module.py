from datetime import datetime

from airflow.models.dataset import Dataset
from airflow.sdk import DAG

with DAG("uses_airflow2_dataset", schedule=[Dataset("s3://x")], start_date=datetime(2024, 1, 1)):
    pass
