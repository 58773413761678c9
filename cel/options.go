package cel

import (
	"fmt"
	"time"
)

// Option configures a [Compiler]; pass it to [NewCompiler].
type Option func(*options)

type options struct {
	timeBudget time.Duration
}

// WithTimeBudget sets the time budget of every evaluation of the programs a
// [Compiler] compiles, in place of [DefaultTimeBudget]:
//
//	c, err := cel.NewCompiler(cel.WithTimeBudget(250 * time.Millisecond))
//
// d must be positive; NewCompiler reports any other value as an error
// wrapping [ErrInvalidOption]. There is no way to turn the budget off: a
// caller that wants a longer one says how long.
func WithTimeBudget(d time.Duration) Option {
	return func(o *options) { o.timeBudget = d }
}

func (o *options) validate() error {
	if o.timeBudget <= 0 {
		return fmt.Errorf("%w: time budget must be positive, got %v", ErrInvalidOption, o.timeBudget)
	}
	return nil
}
