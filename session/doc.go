// Package session holds zkraft's client-session state: the replicated
// session table, the leader-only expiry tracker, session id and password
// generation, and timeout negotiation.
//
// The package follows Apache ZooKeeper's SessionTrackerImpl and ExpiryQueue:
// sessions are grouped into buckets one tickTime wide and a session expires
// when the bucket it was last moved to has passed. Passwords and ids are
// derived exactly as ZooKeeper derives them, so clients that reconnect with a
// (session id, password) pair issued by a real ZooKeeper would validate here.
//
// Time comes from an injectable Clock: RealClock in production, FakeClock in
// tests. The package knows nothing about networking, consensus or the data
// tree.
package session
