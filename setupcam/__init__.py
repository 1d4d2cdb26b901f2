"""setupcam: the command line and the wiring between engine, vision and webui."""
