package main

// The subcommands' runners, as the tests call them.
var (
	runBenchWith   = subcommands["bench"]
	runCheckWith   = subcommands["check"]
	runMergeWith   = subcommands["merge"]
	runDevicesWith = subcommands["devices"]
	runVersionWith = subcommands["version"]
)
