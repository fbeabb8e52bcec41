package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
)

// buildInfo is what shardid version reports: the module's version, and
// the commit it was built from when the build had a clone's VCS
// information (go build and go install in a clone stamp it; go run and
// -buildvcs=false do not).
type buildInfo struct {
	Module   string `json:"module"`
	Version  string `json:"version"`
	Revision string `json:"vcs_revision,omitempty"`
	Time     string `json:"vcs_time,omitempty"`
	Modified *bool  `json:"vcs_modified,omitempty"`
	Go       string `json:"go"`
	Platform string `json:"platform"`
}

// readBuildInfo reads the running binary's build information
// (debug.ReadBuildInfo).
func readBuildInfo() buildInfo {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return buildInfo{Module: "github.com/shardid/shardid", Version: "unknown", Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	}
	return fromBuildInfo(bi)
}

// fromBuildInfo picks what shardid version prints out of bi.
func fromBuildInfo(bi *debug.BuildInfo) buildInfo {
	v := buildInfo{Module: bi.Main.Path, Version: bi.Main.Version, Go: bi.GoVersion, Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if v.Module == "" {
		v.Module = "github.com/shardid/shardid"
	}
	if v.Version == "" {
		v.Version = "(devel)"
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			m := s.Value == "true"
			v.Modified = &m
		case "GOOS":
			v.Platform = s.Value + v.Platform[len(runtime.GOOS):]
		case "GOARCH":
			v.Platform = v.Platform[:len(v.Platform)-len(runtime.GOARCH)] + s.Value
		}
	}
	return v
}

// lines is the text form of v: the version, then the commit when known.
func (v buildInfo) lines() string {
	s := fmt.Sprintf("shardid %s (%s, %s %s)\n", v.Version, v.Module, v.Go, v.Platform)
	if v.Revision != "" {
		s += "commit " + v.Revision
		if v.Time != "" {
			s += " of " + v.Time
		}
		if v.Modified != nil && *v.Modified {
			s += ", with uncommitted changes"
		}
		s += "\n"
	} else {
		s += "commit unknown (built without VCS information: go run, -buildvcs=false, or outside a clone)\n"
	}
	return s
}

func runVersion(_ context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "version")
	asJSON := jsonFlag(fs)
	if err := parseNoArgs(env, fs, args); err != nil {
		return err
	}
	v := readBuildInfo()
	if *asJSON {
		return writeJSON(env.stdout, v)
	}
	_, err := fmt.Fprint(env.stdout, v.lines())
	return err
}
