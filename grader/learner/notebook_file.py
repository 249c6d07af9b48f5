"""Which saved notebook file the learner's kernel belongs to, so the grader cell grades the notebook it is in.

Asked in turn: VS Code, the running Jupyter server's sessions, Jupyter Server's ``JPY_SESSION_NAME``
(``find_notebook``). A kernel started another way (nbclient, nbval) names none, and the cell falls back on the
notebook's shipped name and says so. Standard library only, plus IPython, ipykernel and jupyter_server where the
kernel has them.
"""


def user_namespace():
    """The kernel's user namespace (dict): IPython's ``user_ns`` when IPython runs, else ``__main__``'s globals."""
    import sys

    try:
        from IPython import get_ipython

        shell = get_ipython()
    except ImportError:
        shell = None
    namespace = getattr(shell, "user_ns", None)
    return namespace if isinstance(namespace, dict) else vars(sys.modules["__main__"])


def _kernel_id():
    """The id of the kernel this code runs in (str), from its connection file ``kernel-<id>.json``, or None."""
    import os

    try:
        from ipykernel import get_connection_file

        name = os.path.basename(get_connection_file())
    except Exception:  # not in an ipykernel kernel (a plain python, nbclient without ipykernel's app...)
        return None
    return name[len("kernel-"):-len(".json")] if name.startswith("kernel-") and name.endswith(".json") else None


def _running_servers():
    """The Jupyter servers running on this machine (list of their info dicts: url, token, root_dir)."""
    try:
        from jupyter_server.serverapp import list_running_servers
    except ImportError:
        return []
    try:
        return list(list_running_servers())
    except Exception:
        return []


def _path_from_server(kernel_id, timeout=1.0):
    """The notebook path a running Jupyter server gives the session of ``kernel_id`` (str), or None.

    Asks each server's REST API (``GET /api/sessions``, as JupyterLab does), whose session ``path`` is
    relative to the server's ``root_dir``; this follows a notebook renamed or copied after its kernel started.
    """
    import json
    import os
    import urllib.parse
    import urllib.request

    if not kernel_id:
        return None
    for server in _running_servers():
        url = urllib.parse.urljoin(server.get("url", ""), "api/sessions")
        request = urllib.request.Request(url, headers={"Authorization": f"token {server.get('token', '')}"})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                sessions = json.load(response)
        except Exception:  # a server that is gone, refuses, or answers something else
            continue
        for session in sessions if isinstance(sessions, list) else []:
            kernel = session.get("kernel") if isinstance(session, dict) else None
            path = session.get("path") or session.get("notebook", {}).get("path") if isinstance(session, dict) else None
            if isinstance(kernel, dict) and kernel.get("id") == kernel_id and isinstance(path, str):
                root = server.get("root_dir") or server.get("notebook_dir") or ""
                return os.path.join(root, path)
    return None


def find_notebook(default):
    """Which notebook file this kernel belongs to, and how that is known.

    Tried in turn: VS Code's ``__vsc_ipynb_file__`` (the notebook's absolute path, which VS Code's Jupyter
    extension sets in the user namespace); the running Jupyter server's session for this kernel (what
    JupyterLab shows in its tab; ``_path_from_server``); ``JPY_SESSION_NAME``, which Jupyter Server sets to the
    notebook's path when it starts the kernel (jupyter-server/jupyter_server #679, #1100). A kernel started
    another way (nbclient, nbval) has none of them.

    Args:
        default: the notebook's shipped file name, looked up in the working directory (str).
    Returns:
        ``(path, source)``: an existing ``.ipynb`` path and how it was found (``"VS Code"``, ``"Jupyter"``), or
        ``(default, None)`` when nothing said.
    """
    import os
    import pathlib

    from grader.paths import KIT_ROOT

    root = pathlib.Path(KIT_ROOT).resolve()

    def existing(path):
        if not isinstance(path, str) or not path.endswith(".ipynb"):
            return None
        for candidate in (pathlib.Path(path), root / path, pathlib.Path(pathlib.Path(path).name)):
            if candidate.is_file():
                return str(candidate)
        return None

    found = existing(user_namespace().get("__vsc_ipynb_file__"))
    if found:
        return found, "VS Code"
    for path in (_path_from_server(_kernel_id()), os.environ.get("JPY_SESSION_NAME", "")):
        found = existing(path)
        if found:
            return found, "Jupyter"
    return default, None


def other_copies(default, folder="."):
    """Other notebooks in ``folder`` whose name starts like ``default`` (``05_capstone-Copy1.ipynb``), newest
    first (list of str)."""
    import pathlib

    stem = pathlib.Path(default).stem
    copies = [p for p in pathlib.Path(folder).glob(f"{stem}*.ipynb") if p.name != pathlib.Path(default).name]
    return [p.name for p in sorted(copies, key=lambda p: p.stat().st_mtime, reverse=True)]


def kernel_sources(functions):
    """The source text this kernel holds for each of ``functions`` that a notebook cell defined (dict name -> str).

    IPython keeps every cell's text in ``linecache``, so ``inspect.getsource`` finds a function defined in a cell as
    it is now, after any edit and re-run. A name that is missing, not a function, or not defined in a cell (imported,
    or a plain Python without IPython) is left out.

    Args:
        functions: names to look up in the user namespace (iterable of str).
    Returns:
        ``{name: source}``; empty when nothing can be read.
    """
    import inspect

    namespace = user_namespace()
    found = {}
    for name in functions:
        function = namespace.get(name)
        if not inspect.isfunction(function) or getattr(function, "__module__", None) != "__main__":
            continue
        try:
            found[name] = inspect.getsource(function)
        except (OSError, TypeError):  # no source kept for it
            continue
    return found


def _code_of(path):
    """Every code cell of the notebook at ``path`` joined into one text, each line's trailing spaces dropped (str),
    or None when the file cannot be read as a notebook."""
    import json

    try:
        with open(path, encoding="utf-8") as handle:
            cells = json.load(handle).get("cells", [])
        texts = ["".join(c["source"]) if isinstance(c["source"], list) else c["source"]
                 for c in cells if isinstance(c, dict) and c.get("cell_type") == "code"]
    except (OSError, ValueError, AttributeError, KeyError, TypeError):
        return None
    return "\n".join(line.rstrip() for text in texts for line in text.splitlines())


def holds(path, sources):
    """Whether the saved notebook at ``path`` holds each of ``sources`` (``kernel_sources``) as this kernel runs it
    (bool; True when ``sources`` is empty: nothing to compare). Issue 25's trial: a grade cell run in a copy, outside
    JupyterLab, graded the original and showed its 129/129 while the copy's own self-check said 0 of 6."""
    if not sources:
        return True
    code = _code_of(path)
    if code is None:
        return False
    return all("\n".join(line.rstrip() for line in source.splitlines()) in code for source in sources.values())
