"""Schedule Explorer: see what Apache Airflow 3.3's scheduler will do with your schedules."""

__version__ = "0.1.0"
