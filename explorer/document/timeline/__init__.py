"""The timeline's data without Qt.

Run and event columns, lanes, DST days, time formatting and picking.
"""
