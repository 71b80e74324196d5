import argparse
from torch.backends.xeon import run_cpu
parser = argparse.ArgumentParser(); run_cpu.create_args(parser)
class Reached(Exception): pass
def reached(): raise Reached()
run_cpu._Launcher = reached
run_cpu.platform.system = lambda: "FreeBSD"
try: run_cpu.main(parser.parse_args(["infer.py"]))
except Exception as e: print(type(e).__name__, e)
