import os
from datetime import datetime

from airflow.sdk import DAG, Variable

with DAG(
    "report_from_default",
    schedule=Variable.get("report_cron", default="30 7 * * *"),
    start_date=datetime(2024, 1, 1),
):
    pass

with DAG(
    "env_from_default",
    schedule=os.environ.get("ENV_SCHEDULE_NOT_SET", "@hourly"),
    start_date=datetime(2024, 1, 1),
):
    pass

for n in range(int(os.getenv("DAG_NUMBER_NOT_SET", "3"))):
    with DAG(f"generated_{n}", schedule="@daily", start_date=datetime(2024, 1, 1)):
        pass
