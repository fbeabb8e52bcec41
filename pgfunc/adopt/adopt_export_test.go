package adopt

// AdoptClockOnly returns ao with the new counter started at the clock
// alone, not above the stored IDs: the broken adoption the negative
// control shows the tests catch.
func AdoptClockOnly(ao Options) Options {
	ao.clockOnly = true
	return ao
}

// AdoptKeepingOld returns ao with the old body's sequence left as it is
// (not retired): the broken switch the other negative control shows the
// tests catch.
func AdoptKeepingOld(ao Options) Options {
	ao.keepOld = true
	return ao
}

// UpSection is the Up part of a rendered migration, for tests.
func UpSection(text []byte) (string, error) { return upSection(text) }
