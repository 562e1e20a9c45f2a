"""Template rendering that stays inside the simulation: a closed sandbox,
``macros`` as read-only proxies, and counted bounds on every render."""
