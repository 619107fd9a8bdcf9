// Package testports hands out loopback ports for test servers that must
// know their ports before they start (an ensemble's peer addresses, a
// server restarted on its old port), without two test processes of one
// `go test` run ever handing out the same port.
package testports
