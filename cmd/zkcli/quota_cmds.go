package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-zookeeper/zk"
)

// setquotaUsage is zkCli.sh's usage text after the command's name.
const setquotaUsage = "-n|-b|-N|-B val path"

// errQuotaOptionMissing is commons-cli's message when setquota has none of
// its options.
var errQuotaOptionMissing = errors.New("org.apache.commons.cli.MissingOptionException: Missing required option: [-n num soft quota, -b bytes soft quota, -N num hard quota, -B bytes hard quota]")

// cmdSetQuota is "setquota -n|-b|-N|-B val path", as zkCli.sh's
// SetQuotaCommand: it creates /zookeeper/quota/<path>/zookeeper_limits
// (every limit key, unset ones -1) and zookeeper_stats, or changes the
// limits already there. Refusals it only reports exit with status 0, as
// in zkCli.sh.
func cmdSetQuota(c *client, o *options) error {
	f, err := quotaOption(o)
	if err != nil {
		return err
	}
	if f == 0 {
		return errQuotaOptionMissing
	}
	if len(o.args) < 2 {
		return fmt.Errorf("setquota %s", setquotaUsage)
	}
	path := o.args[1]
	if strings.HasPrefix(path, quotaRoot) {
		fmt.Fprintln(c.errw, "cannot set a quota under the path: "+quotaRoot)
		return nil
	}
	quota := statsTrack{stCount: -1, stBytes: -1, stCountHardLimit: -1, stByteHardLimit: -1}
	if msg := setQuotaValue(quota, f, o.set[f]); msg != "" {
		fmt.Fprintln(c.errw, msg)
		return nil
	}
	return c.createQuota(path, quota)
}

// setQuotaValue checks and records an option's value as zkCli.sh does;
// it returns the message zkCli.sh prints for a bad one.
func setQuotaValue(quota statsTrack, f byte, v string) string {
	bits := 64
	if f == 'n' || f == 'N' {
		bits = 32 // Integer.parseInt
	}
	n, err := strconv.ParseInt(v, 10, bits)
	switch {
	case err != nil:
		return "NumberFormatException happens when parsing the option value"
	case (f == 'n' || f == 'N') && n <= 0:
		return "the num quota must be greater than zero"
	case (f == 'b' || f == 'B') && n < 0:
		return "the bytes quota must be greater than or equal to zero"
	}
	quota[quotaKeys[f]] = n
	return ""
}

// createQuota is SetQuotaCommand.createQuota.
func (c *client) createQuota(path string, quota statsTrack) error {
	if err := validatePath(path); err != nil {
		return err
	}
	ok, _, err := c.conn.Exists(path)
	if err != nil {
		return cliMessage(err, path)
	}
	if !ok {
		return fmt.Errorf("%s does not exist.", path)
	}
	if err := c.checkChildQuota(path); err != nil {
		return err
	}
	if err := c.checkParentQuota(path); err != nil {
		return err
	}
	if err := c.createQuotaPath(path); err != nil {
		return err
	}
	limits := quotaLimitPath(path)
	ok, _, err = c.conn.Exists(limits)
	if err != nil {
		return cliMessage(err, limits)
	}
	if !ok {
		return c.newQuota(path, quota)
	}
	return c.updateQuota(path, quota)
}

// createQuotaPath creates /zookeeper/quota/<path>'s nodes that are missing.
// As in zkCli.sh, /zookeeper/quota itself is only created along with
// /zookeeper, which always exists, so a server without it fails here.
func (c *client) createQuotaPath(path string) error {
	ok, _, err := c.conn.Exists(quotaRoot)
	if err != nil {
		return cliMessage(err, quotaRoot)
	}
	if !ok {
		_, err := c.conn.Create("/zookeeper", nil, 0, zk.WorldACL(zk.PermAll))
		if err == nil {
			_, err = c.conn.Create(quotaRoot, nil, 0, zk.WorldACL(zk.PermAll))
		}
		if err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return cliMessage(err, quotaRoot)
		}
	}
	p := quotaRoot
	for _, seg := range strings.Split(path, "/")[1:] {
		p += "/" + seg
		ok, _, err := c.conn.Exists(p)
		if err != nil {
			return cliMessage(err, p)
		}
		if ok {
			continue
		}
		if _, err := c.conn.Create(p, nil, 0, zk.WorldACL(zk.PermAll)); err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return cliMessage(err, p)
		}
	}
	return nil
}

// newQuota creates the limits and stats nodes, then warns when the
// subtree is already beyond the limits.
func (c *client) newQuota(path string, quota statsTrack) error {
	limits, stats := quotaLimitPath(path), quotaStatPath(path)
	if _, err := c.conn.Create(limits, []byte(quota.String()), 0, zk.WorldACL(zk.PermAll)); err != nil {
		return cliMessage(err, limits)
	}
	zero := statsTrack{stCount: 0, stBytes: 0}
	if _, err := c.conn.Create(stats, []byte(zero.String()), 0, zk.WorldACL(zk.PermAll)); err != nil {
		return cliMessage(err, stats)
	}
	limit, err := c.readStatsTrack(limits)
	if err != nil {
		return err
	}
	return c.warnQuota(limit, stats)
}

// updateQuota changes the limits given in quota and keeps the others.
func (c *client) updateQuota(path string, quota statsTrack) error {
	limits := quotaLimitPath(path)
	limit, err := c.readStatsTrack(limits)
	if err != nil {
		return err
	}
	for k, v := range quota {
		if v > -1 {
			limit[k] = v
		}
	}
	if err := c.warnQuota(limit, quotaStatPath(path)); err != nil {
		return err
	}
	if _, err := c.conn.Set(limits, []byte(limit.String()), -1); err != nil {
		return cliMessage(err, limits)
	}
	return nil
}

// readStatsTrack reads and parses a quota node.
func (c *client) readStatsTrack(path string) (statsTrack, error) {
	data, _, err := c.conn.Get(path)
	if err != nil {
		return nil, cliMessage(err, path)
	}
	return parseStatsTrack(data)
}

// warnQuota prints SetQuotaCommand.checkQuota's warnings (on standard
// output, as zkCli.sh does) when the subtree's counts in stats exceed the
// new limits.
func (c *client) warnQuota(limit statsTrack, stats string) error {
	st, err := c.readStatsTrack(stats)
	if err != nil {
		return err
	}
	over := func(limitKey, hardKey, statKey string) bool {
		n := st.get(statKey)
		l, h := limit.get(limitKey), limit.get(hardKey)
		return (l > -1 && l < n) || (h > -1 && h < n)
	}
	if over(stCount, stCountHardLimit, stCount) {
		fmt.Fprintf(c.out, "[Warning]: the count quota you create is less than the existing count:%d\n", st.get(stCount))
	}
	if over(stBytes, stByteHardLimit, stBytes) {
		fmt.Fprintf(c.out, "[Warning]: the bytes quota you create is less than the existing bytes:%d\n", st.get(stBytes))
	}
	return nil
}

// checkChildQuota refuses a quota on a path with a descendant that has
// one, naming the first such descendant in ls -R's order.
func (c *client) checkChildQuota(path string) error {
	root := quotaRoot + path
	ok, _, err := c.conn.Exists(root)
	if err != nil || !ok {
		return nil // no quota below path (or nothing zkCli.sh would report)
	}
	var found string
	c.visitDFS(root, func(p string) {
		if found != "" || p == root {
			return
		}
		children, _, err := c.conn.Children(p)
		if err != nil {
			return
		}
		for _, ch := range children {
			if ch == quotaLimit {
				found = p
				return
			}
		}
	})
	if found != "" {
		return fmt.Errorf("%s has a child %s which has a quota", path, strings.TrimPrefix(found, quotaRoot))
	}
	return nil
}

// checkParentQuota refuses a quota on a path with an ancestor that has
// one.
func (c *client) checkParentQuota(path string) error {
	segs := strings.Split(strings.TrimRight(path, "/"), "/")
	p := quotaRoot
	for _, seg := range segs[1 : len(segs)-1] {
		p += "/" + seg
		children, _, err := c.conn.Children(p)
		if errors.Is(err, zk.ErrNoNode) || len(children) == 0 {
			return nil
		}
		if err != nil {
			return cliMessage(err, p)
		}
		for _, ch := range children {
			if ch == quotaLimit {
				return fmt.Errorf("%s has a parent %s which has a quota", path, strings.TrimPrefix(p, quotaRoot))
			}
		}
	}
	return nil
}

// cmdListQuota is "listquota path": the limits and the stats, after
// "absolute path is ..." on standard error.
func cmdListQuota(c *client, o *options) error {
	path := o.args[1]
	limits, stats := quotaLimitPath(path), quotaStatPath(path)
	fmt.Fprintln(c.errw, "absolute path is "+limits)
	if err := validatePath(limits); err != nil {
		return err
	}
	var tracks []statsTrack
	for _, p := range []string{limits, stats} {
		data, _, err := c.conn.Get(p)
		if errors.Is(err, zk.ErrNoNode) {
			fmt.Fprintf(c.errw, "quota for %s does not exist.\n", path)
			return nil
		}
		if err != nil {
			return cliMessage(err, p)
		}
		st, err := parseStatsTrack(data)
		if err != nil {
			return err
		}
		tracks = append(tracks, st)
	}
	fmt.Fprintf(c.out, "Output quota for %s %s\n", path, tracks[0])
	fmt.Fprintf(c.out, "Output stat for %s %s\n", path, tracks[1])
	return nil
}

// cmdDelQuota is "delquota [-n|-b|-N|-B] path": with an option, that limit
// is set back to -1; without, the path's quota nodes are deleted and the
// quota tree trimmed.
func cmdDelQuota(c *client, o *options) error {
	f, err := quotaOption(o)
	if err != nil {
		return err
	}
	path := o.args[1]
	err = c.delQuota(path, f)
	if errors.Is(err, zk.ErrNoNode) {
		fmt.Fprintf(c.errw, "quota for %s does not exist.\n", path)
		return nil
	}
	return err
}

// delQuota is DelQuotaCommand.delQuota; a missing node is returned as
// zk.ErrNoNode for the caller's message.
func (c *client) delQuota(path string, f byte) error {
	parent, limits := quotaRoot+path, quotaLimitPath(path)
	if err := validatePath(limits); err != nil {
		return err
	}
	ok, _, err := c.conn.Exists(limits)
	if err != nil {
		return quotaErr(err, limits)
	}
	if !ok {
		fmt.Fprintln(c.out, "Quota does not exist for "+path)
		return nil
	}
	data, _, err := c.conn.Get(limits)
	if err != nil {
		return quotaErr(err, limits)
	}
	limit, err := parseStatsTrack(data)
	if err != nil {
		return err
	}
	if f != 0 {
		limit[quotaKeys[f]] = -1
		_, err := c.conn.Set(limits, []byte(limit.String()), -1)
		return quotaErr(err, limits)
	}
	children, _, err := c.conn.Children(parent)
	if err != nil {
		return quotaErr(err, parent)
	}
	for _, ch := range children {
		if err := c.conn.Delete(parent+"/"+ch, -1); err != nil {
			return quotaErr(err, parent+"/"+ch)
		}
	}
	return c.trimQuotaTree(parent)
}

// trimQuotaTree deletes path and its ancestors below /zookeeper/quota
// while they have no children.
func (c *client) trimQuotaTree(path string) error {
	for path != quotaRoot {
		children, _, err := c.conn.Children(path)
		if err != nil {
			return quotaErr(err, path)
		}
		if len(children) > 0 {
			return nil
		}
		if err := c.conn.Delete(path, -1); err != nil {
			return quotaErr(err, path)
		}
		path = path[:strings.LastIndexByte(path, '/')]
	}
	return nil
}

// quotaErr keeps zk.ErrNoNode as it is (delquota reports it itself) and
// gives other errors zkCli.sh's message.
func quotaErr(err error, path string) error {
	if err == nil || errors.Is(err, zk.ErrNoNode) {
		return err
	}
	return cliMessage(err, path)
}
