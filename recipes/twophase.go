package recipes

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/go-zookeeper/zk"
)

// Node names of a transaction (see Coordinator).
const (
	tpcTxPrefix     = "tx-"
	tpcJoinedPrefix = "joined-"
	tpcAlivePrefix  = "alive-"
	tpcVotePrefix   = "vote-"
	tpcOutcomeNode  = "outcome"

	tpcVoteCommit = "commit"
	tpcVoteAbort  = "abort"
	tpcCommitted  = "committed"
	tpcAborted    = "aborted"
)

// Coordinator opens two-phase commit transactions in a directory, after
// the ZooKeeper recipe ("Two-phased Commit"): the coordinator creates a
// transaction node listing the sites that must agree, each site joins it
// and votes, and the coordinator writes the outcome, which every site
// learns through a watch.
//
// A transaction tx-<id> in dir looks like this:
//
//	dir/tx-<id>               persistent; data: the sites, one per line
//	dir/tx-<id>/joined-<site> persistent; the site joined (it stays)
//	dir/tx-<id>/alive-<site>  ephemeral; the site is still there
//	dir/tx-<id>/vote-<site>   persistent; data "commit" or "abort"
//	dir/tx-<id>/outcome       persistent; data "committed" or "aborted"
//
// A site joins by creating joined-<site> and alive-<site> in one multi,
// and votes by creating vote-<site> in a multi that checks that its
// alive-<site> still exists, so a site whose session has ended cannot vote.
//
// The coordinator decides, from the children of the transaction node:
//
//   - aborted as soon as a site has voted abort;
//   - aborted as soon as a site has joined but its alive node is gone: its
//     session expired or it closed its client (it died), or it withdrew
//     with Leave. The persistent joined node makes this visible even if the
//     site died before the coordinator first looked, and a site cannot join
//     again from another session;
//   - aborted when the context given to Decide ends first (a site that
//     never joins, or never votes, is waited for until then);
//   - committed once every site has voted commit, written in a multi that
//     also checks every alive node, so that no site has gone at the moment
//     the outcome is written.
//
// The outcome node is only ever created, never changed: when coordinators
// race (one deciding, another aborting) the first create wins and the
// others read and report it. Writing it again after a lost reply finds it
// and is therefore idempotent. Once it exists, nothing else matters: sites
// that leave or die afterwards change nothing.
//
// Votes are final: voting again is a no-op if the vote is the same and an
// error otherwise.
//
// The coordinator holds no ephemeral node: if it dies, the transaction
// stays undecided and its sites keep waiting, until another coordinator
// resumes it (Begin with the same sites, then Decide or Abort).
type Coordinator struct {
	conn *zk.Conn
	dir  string
	opt  options
}

// NewCoordinator returns a coordinator of transactions in dir (created if
// missing). WithACL sets the ACL of the nodes it creates.
func NewCoordinator(conn *zk.Conn, dir string, opts ...Option) *Coordinator {
	return &Coordinator{conn: conn, dir: dir, opt: buildOptions(opts)}
}

// Transaction is one two-phase commit transaction, seen from its
// coordinator.
type Transaction struct {
	conn  *zk.Conn
	id    string
	path  string
	sites []string
	opt   options
}

// Begin opens transaction txID for sites (names without '/', each once)
// by creating its node in the coordinator's directory. Beginning a
// transaction that already exists with the same sites resumes it (a
// coordinator that restarted, or a create whose reply was lost); with
// other sites it fails with an error wrapping zk.ErrNodeExists.
func (c *Coordinator) Begin(ctx context.Context, txID string, sites []string) (*Transaction, error) {
	if err := tpcCheckName("transaction id", txID); err != nil {
		return nil, err
	}
	if len(sites) == 0 {
		return nil, errors.New("recipes: a transaction needs at least one site")
	}
	for i, s := range sites {
		if err := tpcCheckName("site", s); err != nil {
			return nil, err
		}
		if slices.Contains(sites[:i], s) {
			return nil, fmt.Errorf("recipes: site %q listed twice", s)
		}
	}
	t := &Transaction{conn: c.conn, id: txID, path: tpcTxPath(c.dir, txID), sites: slices.Clone(sites), opt: c.opt}
	data := []byte(strings.Join(sites, "\n"))
	for {
		_, err := c.conn.Create(t.path, data, 0, c.opt.acl)
		switch {
		case err == nil:
			return t, nil
		case errors.Is(err, zk.ErrNoNode):
			if err := ensurePath(ctx, c.conn, c.dir, c.opt.acl); err != nil {
				return nil, err
			}
			continue
		case errors.Is(err, zk.ErrNodeExists):
			got, err := tpcSites(ctx, c.conn, t.path)
			if err != nil {
				return nil, err
			}
			if !tpcSameSites(got, sites) {
				return nil, fmt.Errorf("recipes: transaction %q exists with sites %q: %w", txID, got, zk.ErrNodeExists)
			}
			return t, nil
		case !transientErr(err):
			return nil, err
		}
		if err := pause(ctx, t.conn); err != nil {
			return nil, err
		}
	}
}

// ID returns the transaction id.
func (t *Transaction) ID() string { return t.id }

// Path returns the path of the transaction node.
func (t *Transaction) Path() string { return t.path }

// Sites returns the sites that must vote.
func (t *Transaction) Sites() []string { return slices.Clone(t.sites) }

// Decide waits for the votes and writes the outcome (see the rules above):
// it reports true once every site voted commit, and false as soon as a
// site votes abort or a site that joined is gone. If another coordinator
// has written the outcome first, Decide reports that one.
//
// If ctx ends before the votes are in, Decide aborts the transaction (one
// attempt, which Abort can repeat) and returns the outcome with ctx.Err().
func (t *Transaction) Decide(ctx context.Context) (bool, error) {
	votes := map[string]bool{} // votes read so far (they never change)
	for {
		kids, _, ch, err := t.conn.ChildrenW(t.path)
		if transientErr(err) {
			if err := pause(ctx, t.conn); err != nil {
				return t.abortOnce(ctx)
			}
			continue
		}
		if err != nil {
			return false, err
		}
		if slices.Contains(kids, tpcOutcomeNode) {
			return tpcReadOutcome(ctx, t.conn, t.outcomePath())
		}
		decided, commit, err := t.judge(ctx, kids, votes)
		if err != nil {
			if ctx.Err() != nil {
				return t.abortOnce(ctx)
			}
			return false, err
		}
		if decided {
			committed, err := t.settle(ctx, commit)
			if errors.Is(err, errTpcSiteGone) {
				continue // a site left just before the commit: judge again
			}
			return committed, err
		}
		select {
		case ev := <-ch:
			if ev.Type == zk.EventNotWatching && errors.Is(ev.Err, zk.ErrClosing) {
				return false, zk.ErrClosing
			}
			// A change, or a new session after expiry: look again.
		case <-ctx.Done():
			return t.abortOnce(ctx)
		}
	}
}

// judge applies the decision rules to the transaction's children. votes
// caches the votes read so far.
func (t *Transaction) judge(ctx context.Context, kids []string, votes map[string]bool) (decided, commit bool, err error) {
	all := true
	for _, s := range t.sites {
		joined := slices.Contains(kids, tpcJoinedPrefix+s)
		alive := slices.Contains(kids, tpcAlivePrefix+s)
		if joined && !alive {
			return true, false, nil // the site died or left
		}
		if !slices.Contains(kids, tpcVotePrefix+s) {
			all = false
			continue
		}
		v, ok := votes[s]
		if !ok {
			data, _, err := tpcGet(ctx, t.conn, path.Join(t.path, tpcVotePrefix+s))
			if errors.Is(err, zk.ErrNoNode) {
				all = false
				continue
			}
			if err != nil {
				return false, false, err
			}
			v = string(data) == tpcVoteCommit
			votes[s] = v
		}
		if !v {
			return true, false, nil
		}
		all = all && alive
	}
	return all, all, nil
}

// errTpcSiteGone reports a commit refused because an alive node vanished.
var errTpcSiteGone = errors.New("recipes: a site left before the commit")

// settle writes the outcome, or reads the one written first. A commit is
// written together with a check of every site's alive node.
func (t *Transaction) settle(ctx context.Context, commit bool) (bool, error) {
	data := []byte(tpcAborted)
	if commit {
		data = []byte(tpcCommitted)
	}
	for {
		var err error
		if commit {
			ops := make([]any, 0, len(t.sites)+1)
			for _, s := range t.sites {
				ops = append(ops, &zk.CheckVersionRequest{Path: path.Join(t.path, tpcAlivePrefix+s), Version: -1})
			}
			ops = append(ops, &zk.CreateRequest{Path: t.outcomePath(), Data: data, Acl: t.opt.acl})
			_, err = t.conn.Multi(ops...)
		} else {
			_, err = t.conn.Create(t.outcomePath(), data, 0, t.opt.acl)
		}
		switch {
		case err == nil:
			return commit, nil
		case errors.Is(err, zk.ErrNodeExists):
			// Written before: by us (a lost reply) or by a rival.
			return tpcReadOutcome(ctx, t.conn, t.outcomePath())
		case commit && errors.Is(err, zk.ErrNoNode):
			if ok, _, err := tpcExists(ctx, t.conn, t.path); err != nil {
				return false, err
			} else if !ok {
				return false, fmt.Errorf("recipes: transaction %q removed: %w", t.id, zk.ErrNoNode)
			}
			return false, errTpcSiteGone
		case !transientErr(err):
			return false, err
		}
		if err := pause(ctx, t.conn); err != nil {
			return false, err
		}
	}
}

// abortOnce is Decide's answer to the end of its context: one attempt at
// writing "aborted" (the context is over, so no retries).
func (t *Transaction) abortOnce(ctx context.Context) (bool, error) {
	if t.conn.State() != zk.StateHasSession {
		return false, ctx.Err() // the write would wait for a reconnection
	}
	_, err := t.conn.Create(t.outcomePath(), []byte(tpcAborted), 0, t.opt.acl)
	if errors.Is(err, zk.ErrNodeExists) {
		data, _, err := t.conn.Get(t.outcomePath())
		if err == nil && string(data) == tpcCommitted {
			return true, ctx.Err()
		}
	}
	return false, ctx.Err()
}

// Abort decides the transaction aborted unless it has been decided
// already, and reports the outcome: false, or true if it had committed.
func (t *Transaction) Abort(ctx context.Context) (bool, error) {
	return t.settle(ctx, false)
}

// Outcome reports, without waiting, whether the transaction has been
// decided, and how. It fails with an error wrapping zk.ErrNoNode if the
// transaction has been removed.
func (t *Transaction) Outcome(ctx context.Context) (decided, committed bool, err error) {
	committed, err = tpcReadOutcome(ctx, t.conn, t.outcomePath())
	if errors.Is(err, zk.ErrNoNode) {
		ok, _, err := tpcExists(ctx, t.conn, t.path)
		if err == nil && !ok {
			err = fmt.Errorf("recipes: transaction %q removed: %w", t.id, zk.ErrNoNode)
		}
		return false, false, err
	}
	return err == nil, committed, err
}

// Remove deletes the transaction node and everything in it, aborting the
// transaction first if it is undecided (which wakes the waiting sites).
// Call it once the sites have learned the outcome: a site that has not
// read it by then gets an error wrapping zk.ErrNoNode.
func (t *Transaction) Remove(ctx context.Context) error {
	if _, err := t.Abort(ctx); err != nil && !errors.Is(err, zk.ErrNoNode) {
		return err
	}
	for {
		kids, err := children(ctx, t.conn, t.path)
		if errors.Is(err, zk.ErrNoNode) {
			return nil
		}
		if err != nil {
			return err
		}
		for _, k := range kids {
			if err := deleteNode(ctx, t.conn, path.Join(t.path, k)); err != nil {
				return err
			}
		}
		err = t.conn.Delete(t.path, -1)
		switch {
		case err == nil, errors.Is(err, zk.ErrNoNode):
			return nil
		case errors.Is(err, zk.ErrNotEmpty):
			continue // a late join; delete it too
		case !retryable(err):
			return err
		}
		if err := pause(ctx, t.conn); err != nil {
			return err
		}
	}
}

func (t *Transaction) outcomePath() string { return path.Join(t.path, tpcOutcomeNode) }

// Participant is one site of a two-phase commit transaction.
type Participant struct {
	conn    *zk.Conn
	tx      string
	site    string
	alive   string
	vote    string
	outcome string
	acl     []zk.ACL
}

// JoinTransaction joins transaction txID of the coordinator's directory dir
// as site, which must be one of the transaction's sites. From now until
// the outcome is decided, the transaction aborts if this site's session
// ends or it calls Leave. It fails with an error wrapping zk.ErrNoNode if
// the transaction does not exist, and zk.ErrNodeExists if the site has
// joined already from another session. WithData sets the data of the
// site's alive node; WithACL the ACL of its nodes.
func JoinTransaction(ctx context.Context, conn *zk.Conn, dir, txID, site string, opts ...Option) (*Participant, error) {
	if err := tpcCheckName("transaction id", txID); err != nil {
		return nil, err
	}
	if err := tpcCheckName("site", site); err != nil {
		return nil, err
	}
	o := buildOptions(opts)
	tx := tpcTxPath(dir, txID)
	sites, err := tpcSites(ctx, conn, tx)
	if err != nil {
		return nil, fmt.Errorf("recipes: transaction %q: %w", txID, err)
	}
	if !slices.Contains(sites, site) {
		return nil, fmt.Errorf("recipes: %q is not a site of transaction %q (sites %q)", site, txID, sites)
	}
	p := &Participant{
		conn:    conn,
		tx:      tx,
		site:    site,
		alive:   path.Join(tx, tpcAlivePrefix+site),
		vote:    path.Join(tx, tpcVotePrefix+site),
		outcome: path.Join(tx, tpcOutcomeNode),
		acl:     o.acl,
	}
	for {
		_, err := conn.Multi(
			&zk.CreateRequest{Path: path.Join(tx, tpcJoinedPrefix+site), Acl: o.acl},
			&zk.CreateRequest{Path: p.alive, Data: o.data, Acl: o.acl, Flags: zk.FlagEphemeral},
		)
		switch {
		case err == nil:
			return p, nil
		case errors.Is(err, zk.ErrNodeExists):
			// Joined before: by us, if our create lost its reply.
			ok, stat, err := tpcExists(ctx, conn, p.alive)
			if err != nil {
				return nil, err
			}
			if ok && stat.EphemeralOwner == conn.SessionID() {
				return p, nil
			}
			return nil, fmt.Errorf("recipes: site %q already joined transaction %q: %w", site, txID, zk.ErrNodeExists)
		case errors.Is(err, zk.ErrNoNode):
			return nil, fmt.Errorf("recipes: transaction %q: %w", txID, err)
		case !transientErr(err):
			return nil, err
		}
		if err := pause(ctx, conn); err != nil {
			p.dropAlive(ctx) // in case the lost create ran (one attempt)
			return nil, err
		}
	}
}

// Site returns the participant's site name.
func (p *Participant) Site() string { return p.site }

// Vote casts this site's vote: commit (true) or abort (false). A vote is
// final; casting the same vote again is a no-op and another one an error.
// It returns ErrSessionLost if the site's alive node is gone (its session
// expired, or it left): such a site can no longer vote, and the
// transaction aborts unless it was decided already.
func (p *Participant) Vote(ctx context.Context, commit bool) error {
	data := tpcVoteAbort
	if commit {
		data = tpcVoteCommit
	}
	for {
		_, err := p.conn.Multi(
			&zk.CheckVersionRequest{Path: p.alive, Version: -1},
			&zk.CreateRequest{Path: p.vote, Data: []byte(data), Acl: p.acl},
		)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, zk.ErrNoNode):
			return ErrSessionLost
		case errors.Is(err, zk.ErrNodeExists):
			got, _, err := tpcGet(ctx, p.conn, p.vote)
			if err != nil {
				return err
			}
			if string(got) != data {
				return fmt.Errorf("recipes: site %q already voted %s", p.site, got)
			}
			return nil // voted already (our reply was lost)
		case !transientErr(err):
			return err
		}
		if err := pause(ctx, p.conn); err != nil {
			return err
		}
	}
}

// Outcome waits until the transaction is decided and returns true if it
// committed, or ErrAborted. It keeps waiting across connection losses and
// session expiry (the outcome outlives sessions). Once it knows the
// outcome it removes the site's alive node, which is no longer needed. It
// returns an error wrapping zk.ErrNoNode if the transaction was removed
// before it read the outcome.
func (p *Participant) Outcome(ctx context.Context) (bool, error) {
	for {
		ok, _, ch, err := p.conn.ExistsW(p.outcome)
		if transientErr(err) {
			if err := pause(ctx, p.conn); err != nil {
				return false, err
			}
			continue
		}
		if err != nil {
			return false, err
		}
		if ok {
			committed, err := tpcReadOutcome(ctx, p.conn, p.outcome)
			if err != nil {
				return false, err
			}
			p.dropAlive(ctx)
			if !committed {
				return false, ErrAborted
			}
			return true, nil
		}
		// Remove writes an outcome before deleting, so a transaction gone
		// now was removed before the watch was set.
		if ok, _, err := tpcExists(ctx, p.conn, p.tx); err != nil {
			return false, err
		} else if !ok {
			return false, fmt.Errorf("recipes: transaction removed: %w", zk.ErrNoNode)
		}
		select {
		case ev := <-ch:
			if ev.Type == zk.EventNotWatching && errors.Is(ev.Err, zk.ErrClosing) {
				return false, zk.ErrClosing
			}
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
}

// Leave withdraws the site: it deletes its alive node, which aborts the
// transaction unless it was decided already.
func (p *Participant) Leave(ctx context.Context) error {
	return p.dropAlive(ctx)
}

// dropAlive deletes the site's alive node if this session owns it.
func (p *Participant) dropAlive(ctx context.Context) error {
	ok, stat, err := tpcExists(ctx, p.conn, p.alive)
	if err != nil || !ok || stat.EphemeralOwner != p.conn.SessionID() {
		return err
	}
	return deleteNode(ctx, p.conn, p.alive)
}

// tpcTxPath is the path of transaction id in dir.
func tpcTxPath(dir, id string) string { return path.Join(dir, tpcTxPrefix+id) }

func tpcCheckName(what, name string) error {
	if name == "" || strings.ContainsAny(name, "/\n\x00") || name == "." || name == ".." {
		return fmt.Errorf("recipes: bad %s %q", what, name)
	}
	return nil
}

// tpcSites reads the site list of the transaction node tx.
func tpcSites(ctx context.Context, conn *zk.Conn, tx string) ([]string, error) {
	data, _, err := tpcGet(ctx, conn, tx)
	if err != nil {
		return nil, err
	}
	if len(data) == 0 {
		return nil, nil
	}
	return strings.Split(string(data), "\n"), nil
}

func tpcSameSites(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// tpcReadOutcome reads an outcome node: true for committed.
func tpcReadOutcome(ctx context.Context, conn *zk.Conn, p string) (bool, error) {
	data, _, err := tpcGet(ctx, conn, p)
	if err != nil {
		return false, err
	}
	switch string(data) {
	case tpcCommitted:
		return true, nil
	case tpcAborted:
		return false, nil
	}
	return false, fmt.Errorf("recipes: bad transaction outcome %q at %s", data, p)
}

// tpcGet reads p, retrying after a connection loss or session expiry.
func tpcGet(ctx context.Context, conn *zk.Conn, p string) ([]byte, *zk.Stat, error) {
	for {
		data, stat, err := conn.Get(p)
		if !transientErr(err) {
			return data, stat, err
		}
		if err := pause(ctx, conn); err != nil {
			return nil, nil, err
		}
	}
}

// tpcExists checks p, retrying after a connection loss or session expiry.
func tpcExists(ctx context.Context, conn *zk.Conn, p string) (bool, *zk.Stat, error) {
	for {
		ok, stat, err := conn.Exists(p)
		if !transientErr(err) {
			return ok, stat, err
		}
		if err := pause(ctx, conn); err != nil {
			return false, nil, err
		}
	}
}
