"""`//crcr:dispatch_handler`: validate a dispatch, plan legs, run and report them."""
