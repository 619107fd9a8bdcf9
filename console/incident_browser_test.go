package console

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/integration"
)

// The console during an incident: a page must never show a stale server
// as current. The pages below sample their own DOM every 250 ms (sampler)
// while the test kills or cuts off servers, and the test checks every
// sample afterwards.

// sampler is the script that records, every 250 ms, which servers the
// page draws as leader, each server's role, and the quorum line.
const sampler = `(() => {
	window.zkSamples = [];
	setInterval(() => {
		const roles = {};
		for (const td of document.querySelectorAll("td[data-role]")) roles[td.dataset.serverId] = td.dataset.role;
		const leaders = Object.keys(roles).filter(id => roles[id] === "leader");
		window.zkSamples.push({t: Date.now(), leaders, roles, quorum: document.querySelector("#quorum").dataset.quorum});
	}, 250);
	return true;
})()`

// sample is one of the sampler's records.
type sample struct {
	T       int64             `json:"t"`
	Leaders []string          `json:"leaders"`
	Roles   map[string]string `json:"roles"`
	Quorum  string            `json:"quorum"`
}

// incidentTimeout bounds the wait for a page to show what an incident
// did. The page must show a dead server unreachable two ticks after its
// last figures; the slack covers the page's refresh and a loaded machine.
const incidentTimeout = 2*integration.ClusterTick + 10*time.Second

// openSampled opens base in a new tab of ctx, waits until it shows every
// server of the ensemble with a role, and starts the sampler.
func openSampled(t *testing.T, ctx context.Context, base string, servers int) context.Context {
	t.Helper()
	tab, cancel := chromedp.NewContext(ctx)
	t.Cleanup(cancel)
	require.NoError(t, chromedp.Do(tab, chromedp.Navigate(base+"/")))
	_, err := chromedp.Run(tab, chromedp.Poll[bool](`(() => {
		const tds = document.querySelectorAll("td[data-role]");
		return tds.length === `+strconv.Itoa(servers)+` && [...tds].every(td => td.dataset.stale === "false");
	})()`, incidentPoll...))
	require.NoError(t, err, "the page never showed every server with current figures")
	_, err = chromedp.Run(tab, chromedp.Evaluate[bool](sampler))
	require.NoError(t, err)
	return tab
}

var incidentPoll = []chromedp.PollOption{chromedp.WithPollingInterval(50 * time.Millisecond), chromedp.WithPollingTimeout(incidentTimeout)}

// samplesOf returns the samples the page's sampler took.
func samplesOf(t *testing.T, tab context.Context) []sample {
	t.Helper()
	s, err := chromedp.Run(tab, chromedp.Evaluate[[]sample](`window.zkSamples`))
	require.NoError(t, err)
	return s
}

// pageNow is the page's clock, in ms, as the samples' T.
func pageNow(t *testing.T, tab context.Context) int64 {
	t.Helper()
	ms, err := chromedp.Run(tab, chromedp.Evaluate[int64](`Date.now()`))
	require.NoError(t, err)
	return ms
}

// requireOneLeader checks that no sample shows two servers as leader.
func requireOneLeader(t *testing.T, page string, samples []sample) {
	t.Helper()
	require.NotEmpty(t, samples)
	for _, s := range samples {
		require.LessOrEqual(t, len(s.Leaders), 1, "%s drew %v as leaders at once: %v", page, s.Leaders, s.Roles)
	}
}

// firstShowing returns how long after from the samples first show server
// id in role, or -1.
func firstShowing(samples []sample, id, role string, from int64) time.Duration {
	for _, s := range samples {
		if s.T >= from && s.Roles[id] == role {
			return time.Duration(s.T-from) * time.Millisecond
		}
	}
	return -1
}

// TestBrowserLeaderKilledNeverTwoLeaders kills the leader under a
// follower's page: the dead server turns unreachable, never leader, and
// at no sample are two servers drawn as leader.
func TestBrowserLeaderKilledNeverTwoLeaders(t *testing.T) {
	ctx := browser(t)
	c, leader, follower, bases := ensembleShowing(t)
	tab := openSampled(t, ctx, bases[follower], 3)
	dead := strconv.Itoa(leader + 1)

	killed := pageNow(t, tab)
	c.Kill(leader)
	_, err := chromedp.Run(tab, chromedp.Poll[bool](
		`document.querySelector('td[data-role="unreachable"][data-last-role="leader"][data-server-id="`+dead+`"]') !== null &&
		 document.querySelectorAll('td[data-role="leader"]').length === 1`, incidentPoll...))
	require.NoError(t, err, "the page never showed the dead leader unreachable beside a new leader")
	_, err = chromedp.Run(tab, chromedp.Poll[bool](`window.zkSamples.some(s => s.roles["`+dead+`"] === "unreachable")`, incidentPoll...))
	require.NoError(t, err, "the sampler never recorded the dead leader unreachable")
	samples := samplesOf(t, tab)
	requireOneLeader(t, "the follower's page", samples)
	after := firstShowing(samples, dead, "unreachable", killed)
	t.Logf("the dead leader was drawn unreachable %v after the kill (two ticks: %v); %d samples", after, 2*integration.ClusterTick, len(samples))
	for _, s := range samples {
		if s.T > killed+int64(after/time.Millisecond) {
			require.NotEqual(t, "leader", s.Roles[dead], "the dead server was drawn as leader again")
		}
	}
	_, err = chromedp.Run(tab, chromedp.Poll[bool](`document.querySelector("#quorum").dataset.quorum === "yes"`, incidentPoll...))
	require.NoError(t, err, "two of three voters and a new leader: the page never said it has a quorum")
}

// TestBrowserPartitionedMinority cuts one follower off: the majority's
// page (on the leader) shows it unreachable and keeps its quorum; the
// cut-off server's own page says it has no quorum and never draws two
// leaders; after the heal both pages show every server current again.
func TestBrowserPartitionedMinority(t *testing.T) {
	ctx := browser(t)
	c, leader, follower, bases := ensembleShowing(t)
	cut := 3 - leader - follower // the third server
	majority := openSampled(t, ctx, bases[leader], 3)
	minority := openSampled(t, ctx, bases[cut], 3)
	cutID := strconv.Itoa(cut + 1)

	c.Partition([]int{leader, follower}, []int{cut})
	_, err := chromedp.Run(majority, chromedp.Poll[bool](
		`document.querySelector('td[data-role="unreachable"][data-server-id="`+cutID+`"]') !== null &&
		 document.querySelector("#quorum").dataset.quorum === "yes"`, incidentPoll...))
	require.NoError(t, err, "the leader's page never showed the cut-off server unreachable with its quorum kept")
	_, err = chromedp.Run(minority, chromedp.Poll[bool](
		`document.querySelector("#quorum").dataset.quorum === "no" &&
		 document.querySelectorAll('td[data-role="unreachable"]').length === 2`, incidentPoll...))
	require.NoError(t, err, "the cut-off server's page never said it has no quorum")
	requireOneLeader(t, "the leader's page", samplesOf(t, majority))
	requireOneLeader(t, "the cut-off server's page", samplesOf(t, minority))
	_, err = chromedp.Run(minority, chromedp.Poll[bool](`document.querySelector("#leader").dataset.leader === "0"`, incidentPoll...))
	require.NoError(t, err, "the cut-off server's page still names a leader it cannot hear from")

	c.Heal()
	for _, tab := range []context.Context{majority, minority} {
		_, err = chromedp.Run(tab, chromedp.Poll[bool](`(() => {
			const tds = document.querySelectorAll("td[data-role]");
			return document.querySelector("#quorum").dataset.quorum === "yes" && tds.length === 3 &&
				[...tds].every(td => td.dataset.stale === "false");
		})()`, incidentPoll...))
		require.NoError(t, err, "after the heal, a page never showed every server current again")
		requireOneLeader(t, "a page after the heal", samplesOf(t, tab))
	}
}

// TestBrowserEveryRoleSeesEveryMember opens the page of each member of an
// ensemble with an observer, each in a fresh tab: every member's figures
// show, none drawn unreachable on the way (loading first).
func TestBrowserEveryRoleSeesEveryMember(t *testing.T) {
	ctx := browser(t)
	c := integration.StartCluster(t, 4, integration.WithObservers(1))
	leader := c.WaitForLeader()
	for i := range c.Servers {
		switch {
		case i == 3:
			c.WaitForRole(i, "observer")
		case i != leader:
			c.WaitForRole(i, "follower")
		}
	}
	bases := serveCluster(t, c, 250*time.Millisecond)
	for i, base := range bases {
		tab, cancel := chromedp.NewContext(ctx)
		start := time.Now()
		require.NoError(t, chromedp.Do(tab, chromedp.Navigate(base+"/")))
		_, err := chromedp.Run(tab, chromedp.Evaluate[bool](sampler))
		require.NoError(t, err)
		_, err = chromedp.Run(tab, chromedp.Poll[bool](`(() => {
			const tds = document.querySelectorAll("td[data-role]");
			return tds.length === 4 && [...tds].every(td => td.dataset.stale === "false");
		})()`, incidentPoll...))
		require.NoError(t, err, "server %d's page never showed every member", i+1)
		took := time.Since(start)
		for _, s := range samplesOf(t, tab) {
			for id, role := range s.Roles {
				require.NotEqual(t, "unreachable", role, "server %d's page drew server %s unreachable while loading", i+1, id)
			}
		}
		t.Logf("server %d's page (%s) showed every member's figures %v after the navigation began", i+1, c.Servers[i].Mode(), took.Round(time.Millisecond))
		cancel()
	}
}
