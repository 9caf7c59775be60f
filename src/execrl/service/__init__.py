"""Execution at cluster scale: ``execrl serve`` (the native API and SandboxFusion-compatible
endpoints), ``RemoteExecutor`` (the §6 fallback policy over several servers) and
``RayExecutor`` (one LocalExecutor per node).

The heavy dependencies are optional extras: ``execrl[serve]`` (fastapi, uvicorn, httpx) and
``execrl[ray]``; importing this package needs neither.
"""
