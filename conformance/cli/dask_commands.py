"""Distributed runs over Dask (conformance/run/dask_run.py; docs/many-machines.md, "Distributed runs").

    conformance dask-certs DIR                               a CA and the scheduler's, workers' and
                                                             client's certificates and keys (TLS both ways)
    conformance dask-scheduler --dask-certs DIR [--host H] [--port P]
    conformance dask-worker tls://HOST:PORT --dask-certs DIR [--backend-option KEY=VALUE ...]
    conformance run ... --dask tls://HOST:PORT --dask-certs DIR | --dask local:N

Dask is imported only by these commands: a plain run, and the Windows harness, do without it.
"""
import asyncio
import sys

from conformance.backends import BackendUnavailable
from conformance.cli import exitcodes
from conformance.errors import BadInput

DEFAULT_PORT = 8786  # Dask's own


def add_run_options(run_parser):
    run_parser.add_argument("--dask", metavar="tls://HOST:PORT|local:N",
                            help="spread the run over Dask workers: a scheduler's address (with --dask-certs), or "
                            "local:N, N worker processes here; each worker runs its own backend")
    run_parser.add_argument("--dask-certs", metavar="DIR", help="the certificates conformance dask-certs wrote, "
                            "for --dask tls://... (local:N makes temporary ones)")
    run_parser.add_argument("--dask-workers", type=int, default=1, metavar="N",
                            help="wait for N workers to join the scheduler (default 1) and start every one's "
                            "backend before the first case: a worker that cannot start it ends the run (exit 3)")


def register(subparsers):
    certs = subparsers.add_parser("dask-certs", help="write the TLS certificates of a distributed run's scheduler, "
                                  "workers and client")
    certs.add_argument("folder", metavar="DIR", help="a new or empty folder (made 0700, its files 0600)")
    certs.set_defaults(handler=cmd_certs)
    scheduler = subparsers.add_parser("dask-scheduler", help="a Dask scheduler for distributed runs (TLS)")
    scheduler.add_argument("--dask-certs", metavar="DIR", required=True)
    scheduler.add_argument("--host", default="", help="the address to listen on (default: every interface)")
    scheduler.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"default {DEFAULT_PORT}; 0: any free one")
    scheduler.set_defaults(handler=cmd_scheduler)
    worker = subparsers.add_parser("dask-worker", help="a Dask worker that runs cases on its own backend (TLS)")
    worker.add_argument("scheduler", metavar="tls://HOST:PORT")
    worker.add_argument("--dask-certs", metavar="DIR", required=True)
    worker.add_argument("--backend-option", action="append", default=[], metavar="KEY=VALUE",
                        help="this worker's own backend option, over the run's --provider-option (e.g. "
                        "vulkan_device=1 under Wine, device_id=1 on Windows: one worker a GPU)")
    worker.add_argument("--host", help="the address to listen on (default: the one that reaches the scheduler)")
    worker.add_argument("--name", help="the worker's name in the scheduler (default: its address)")
    worker.set_defaults(handler=cmd_worker)


def engine(args, options: dict, jobs: int, say):
    """The cluster of args.dask, its workers' backends started (conformance.run.dask_run.Engine)."""
    from conformance.run import dask_run
    from conformance.run.dask_tasks import Job
    if args.save_failures:
        raise BadInput("--save-failures with --dask: the failures would be saved on the workers' machines; "
                       "rerun the failing cases without --dask to save them")
    local = dask_run.dask_security.LOCAL.fullmatch(str(args.dask).strip())
    if local and not args.jobs:  # the machine's cores shared out over its workers
        jobs = max(1, jobs // max(1, int(local.group(1))))
    elif not args.jobs:
        jobs = 0  # each worker: its own usable cores
    job = Job(args.backend, tuple(sorted(options.items())), None, None, jobs)
    if args.dask_workers < 1:
        raise BadInput(f"--dask-workers {args.dask_workers}: expected at least 1")
    return dask_run.connect(args.dask, args.dask_certs, job, say, workers=args.dask_workers)


def cmd_certs(args) -> int:
    from conformance.run import dask_security
    dask_security.write_certs(args.folder)
    print(f"dask-certs: {args.folder}: ca.pem and the scheduler's, workers' and client's certificates and keys "
          "(0600, folder 0700); copy the folder to each machine of the run, as its owner alone may read it")
    return exitcodes.CONFORMANT


def cmd_scheduler(args) -> int:
    import dask
    from distributed import Scheduler
    from conformance.run import dask_run, dask_security
    security = dask_security.security(args.dask_certs)

    async def serve():
        with dask.config.set(dask_run.CONFIG):
            scheduler = Scheduler(host=args.host or None, port=args.port, protocol="tls://", security=security,
                                  dashboard=False, dashboard_address=dask_run.HTTP_ADDRESS)
        async with scheduler:
            print(f"dask scheduler at {scheduler.address}", flush=True)
            await scheduler.finished()

    try:
        asyncio.run(serve())
    except OSError as error:
        raise BadInput(f"dask-scheduler: cannot listen on {args.host or '*'}:{args.port}: {error.strerror or error}")
    return exitcodes.CONFORMANT


def cmd_worker(args) -> int:
    import dask
    from distributed import Worker
    from conformance.run import dask_run, dask_security, dask_tasks
    address = dask_security.scheduler_address(args.scheduler, "dask-worker")
    security = dask_security.security(args.dask_certs)
    dask_tasks.set_own_options(args.parse_options(args.backend_option, "--backend-option"))

    async def serve():
        with dask.config.set(dask_run.CONFIG):
            worker = Worker(address, security=security, nthreads=1, name=args.name, host=args.host,
                            death_timeout=dask_run.WORKERS_SECONDS, dashboard_address=dask_run.HTTP_ADDRESS)
        try:
            await worker
        except (OSError, TimeoutError) as error:
            raise BackendUnavailable(f"dask-worker: cannot reach the Dask scheduler at {address} within "
                                     f"{dask_run.WORKERS_SECONDS} s: {error}") from None
        async with worker:
            print(f"dask worker {worker.address} joined {address}", flush=True)
            await worker.finished()

    try:
        asyncio.run(serve())
    finally:
        dask_tasks.close_backends()
    print("dask worker: the scheduler is gone", file=sys.stderr)
    return exitcodes.CONFORMANT
