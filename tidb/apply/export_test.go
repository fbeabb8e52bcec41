package apply

// SetBeforeApply sets the hook Up runs before it applies each step, for
// the package's external tests; nil removes it.
func SetBeforeApply(f func(version int64)) { beforeApply = f }
