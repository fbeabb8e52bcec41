package pgfunc

// Validate returns the error Render would return for o's options (the
// layout, the mode, the lead and their combination), as one line naming
// what is wrong and what is allowed; nil when o renders.
func (o Options) Validate() error {
	_, err := o.normalize()
	return err
}

// Clock is the SQL expression the generator o renders reads its time
// from (clock_timestamp() unless a test set another), for the statements
// that compare a counter with that clock.
func (o Options) Clock() string {
	if o.clock == "" {
		return "pg_catalog.clock_timestamp()"
	}
	return o.clock
}

// Checked returns o rendering the migration without its checks of the
// database (template, shard id, kind of generator), keeping its carry-on
// from kept counters: for migrate.Up alone, which has made every one of
// those checks itself, over the whole server, under its lock.
func (o Options) Checked() Options {
	o.checked = true
	return o
}

// SameBody reports whether two metas describe the same IDs and the same
// next_id() body: the same generator and the same lead.
func (m Meta) SameBody(o Meta) bool { return m.sameBody(o) }

// Normalized is o with its defaults filled in (the Instagram layout, mode
// unique, DefaultLead), as Render renders it; o as it is when it does not
// validate.
func (o Options) Normalized() Options {
	n, err := o.normalize()
	if err != nil {
		return o
	}
	return n
}
