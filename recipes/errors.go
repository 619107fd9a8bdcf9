package recipes

import "errors"

var (
	// ErrSessionLost is returned when the recipe's ephemeral node vanished
	// while it waited or held something: the session expired, the client
	// was closed, or another client deleted the node.
	ErrSessionLost = errors.New("recipes: session lost (ephemeral node gone)")
	// ErrNotHeld is returned by Unlock and Release calls on something not held.
	ErrNotHeld = errors.New("recipes: not held")
	// ErrAborted is returned by two-phase commit participants when the
	// transaction was aborted.
	ErrAborted = errors.New("recipes: transaction aborted")
	// ErrUnknownOutcome is returned by a Counter write whose reply was lost
	// and whose session then expired before it could find out whether the
	// write had run: the value may or may not have changed.
	ErrUnknownOutcome = errors.New("recipes: outcome unknown (reply lost, then session expired)")
	// ErrAlreadyEntered is returned by Enter on a participant that has entered
	// and not yet left.
	ErrAlreadyEntered = errors.New("recipes: double barrier already entered")
	// ErrOtherSide is returned by RLock and TryRLock on an RWLock that holds its
	// write side, and by Lock and TryLock on one that holds its read side: an
	// RWLock value holds one side at a time.
	ErrOtherSide = errors.New("recipes: RWLock holds the other side")
	// ErrGrantLost is returned by a guarded write (GuardedMulti) whose grant
	// node is gone (its session expired, or someone deleted it) or was
	// rewritten since the grant: none of its operations ran. The error also
	// wraps the server's reason, zk.ErrNoNode, zk.ErrBadVersion or
	// zk.ErrSessionExpired.
	ErrGrantLost = errors.New("recipes: grant no longer held; guarded operations not applied")
	// ErrStaleToken is returned by a Fence given a token older than one it
	// has already accepted: the caller's grant has passed to someone else.
	ErrStaleToken = errors.New("recipes: stale fencing token")
	// ErrInvalidToken is returned by a Fence given a token that is not
	// positive (such as the zero Token left by an ignored error), and by
	// ParseToken for text that is not a token.
	ErrInvalidToken = errors.New("recipes: invalid fencing token")
)
