"""The web dashboard: pages over the daemons' APIs (dashboard.py), their figures
(figures.py) and HTML (pages.py), with Chart.js vendored in static/."""

from .dashboard import ROOT, mount_dashboard

__all__ = ["ROOT", "mount_dashboard"]
