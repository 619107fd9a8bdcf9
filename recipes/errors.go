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
	// ErrClosed is returned by a recipe used after Close.
	ErrClosed = errors.New("recipes: closed")
)
