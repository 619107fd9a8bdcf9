package main

import (
	"fmt"
	"slices"
	"time"

	"github.com/zkraft/zkraft/internal/realzk"
)

// roles are -role's values: which servers of an ensemble the sessions
// connect to, by the Mode their srvr reports.
var roles = []string{"any", "leader", "follower", "observer"}

// roleAddrs returns the addresses among addrs whose server's srvr Mode is
// role, asked afresh (a leader can change between rounds); "any" returns
// addrs unchanged. A standalone server counts as the leader.
func roleAddrs(addrs []string, role string) ([]string, error) {
	if role == "any" {
		return addrs, nil
	}
	var out []string
	var modes []string
	for _, a := range addrs {
		mode, err := realzk.Mode(a, 2*time.Second)
		if err != nil {
			mode = "not serving"
		}
		modes = append(modes, mode)
		if mode == role || (role == "leader" && mode == "standalone") {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-role %s: no such server among %v (modes %v)", role, addrs, modes)
	}
	return out, nil
}

func checkRole(role string) error {
	if !slices.Contains(roles, role) {
		return fmt.Errorf("-role %q: want one of %v", role, roles)
	}
	return nil
}
