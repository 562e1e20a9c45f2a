"""What the panes around the timeline say, without Qt.

Badges, step captions, compare pairs and script actions.
"""
