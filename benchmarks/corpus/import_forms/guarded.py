from datetime import datetime

try:
    from airflow.sdk import DAG, PartitionAtRuntime
except ImportError:
    from airflow.sdk import DAG

with DAG("guarded_import", schedule="@hourly", start_date=datetime(2024, 1, 1)):
    pass
