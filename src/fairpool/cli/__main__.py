"""``python -m fairpool.cli``: the fairpool command without its installed script."""

from .main import main

main(prog_name="fairpool")
