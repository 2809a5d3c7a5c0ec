"""The Spark jobs' tests run in the Spark venv (Scripts/cluster-classify --test); they share the
CLI helpers of the package's tests (Python/tests/unlocks_cli.py)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
