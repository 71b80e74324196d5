"""What one checker may use (memory, output, its result channel) and how long a message or a detail may be."""


def _short(value):
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


MESSAGE_LIMIT = 2000  # characters of an exception's message kept in a result


def _message(err):
    """An exception's message, cut to MESSAGE_LIMIT characters (a check's message can be any size)."""
    try:
        text = str(err)
    except Exception:
        text = "<%s whose message cannot be shown>" % type(err).__name__
    return _cut(text, MESSAGE_LIMIT)


# Limits on one checker: memory beyond what it starts with (data and address space: a shared
# mapping counts too), output it may write, and CPU seconds per check (wall seconds times
# cores, so threads are not cut short). Address space also grows by what threads reserve
# without using (a stack, a malloc arena): THREAD_RESERVE per core is allowed for that.
MEMORY_LIMIT = 4 << 30


THREAD_RESERVE = 72 << 20


OUTPUT_LIMIT = 64 << 20


# Facts that require these start CUDA, which maps large virtual areas: no memory limit for them.
UNLIMITED_MEMORY = ("cuda", "cudnn")


def time_limit(item, timeout):
    """Seconds ``item``'s check may run: the request's ``timeout``, or more where the fact asks for more
    (a check that starts an interpreter)."""
    return max(timeout, item.get("timeout") or 0)


DETAIL_LIMIT = 4000  # characters of a result's detail


RESULT_LIMIT = 1 << 20  # bytes a checker may send on its result channel


SPARES_PER_SLOT = 4  # checkers forked ahead, in one burst, while others run


def _cut(text, limit=DETAIL_LIMIT):
    """``text`` in at most ``limit`` characters."""
    text = text if isinstance(text, str) else str(text)
    return text if len(text) <= limit else text[:limit - 3] + "..."
