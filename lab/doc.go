// Package lab runs a whole ensemble in one process for people to break
// on purpose (`make lab`, cmd/zklab): three or five servers on loopback,
// their data in a temporary directory, each with its AdminServer and web
// console, and the console's lab controls (console.Lab) wired to them:
// kill and restart a server, partition one away and heal, slow a link or
// make it lossy, and start or stop a client write load. The console's
// guided scenarios use a few more (scenario.go): client writes through a
// chosen server, a snapshot now, and reconfig -remove / -add.
//
// The servers talk to each other through an internal/faultnet network,
// the one the test harness uses, so a partition here is the partition the
// fault tests make. The lab is the only thing that sets
// console.Options.Lab: a server started any other way has no lab routes.
//
// It imports server, admin and console to assemble them, as cmd/zkserver
// does; nothing imports it but cmd/zklab and its own tests.
package lab
