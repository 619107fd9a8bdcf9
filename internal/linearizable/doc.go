// Package linearizable is test support for checking that what clients saw
// of a ZooKeeper ensemble is linearizable: a porcupine model in which each
// znode is a versioned register, a recorder of the operations many client
// goroutines issue, and a client loop that issues random operations on a
// few znodes. Tests record a history while they inject faults, then check
// it with porcupine.CheckOperations (Check also writes porcupine's
// visualization of a history that is not linearizable).
//
// A write whose connection broke has an unknown outcome: the model lets it
// take effect at any time after it was issued, or never. Reads are a sync
// followed by a get, so that they are linearizable in ZooKeeper's sense.
//
// Only tests import it.
package linearizable
