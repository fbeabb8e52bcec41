package repotest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode"

	"github.com/shardid/shardid"
	"github.com/shardid/shardid/pgfunc/fleet"
	"github.com/shardid/shardid/tools/testsrv"
)

// illustrations are the blocks that are not run or parsed: output, SQL to
// read, diagrams. Each is named by its file and first non-blank line; a
// block in the docs marked <!-- illustration --> or fenced ```text must be
// listed here, and every entry must still name a block.
var illustrations = []struct{ file, first string }{
	{"README.md", "CREATE TABLE insta5.photos (id bigint PRIMARY KEY DEFAULT insta5.next_id(), caption text);"},
	{"docs/postgres.md", "CREATE TABLE insta5.photos (id bigint PRIMARY KEY DEFAULT insta5.next_id(), caption text);"},
	{"docs/postgres.md", "-- many rows in one statement: next_id_bulk() is one inlinable expression"},
	{"docs/postgres.md", "insta7               shard 7     dry run  Instagram's published next_id()"},
	{"docs/tickets.md", "SERVER                                   KIND     INCREMENT OFFSET LAST                 RECORDED             BEHIND"},
	{"docs/metrics.md", `shardid_tickets_draws_total{name="tickets64"} 100`}, // its names checked by the metrics module's TestScrapeLiveClients
}

// externalTools are programs of other projects the docs' shell blocks run
// (goose, PostgreSQL's client tools) and shell plumbing: their command
// lines are accepted as written, not checked.
var externalTools = []string{"goose", "psql", "pg_dump", "pg_basebackup", "tail", "head", "for", "do", "done"}

// docFiles lists README.md and docs/*.md.
func docFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"README.md"}, files...)
}

// TestDocsCodeBlocks checks the documentation, README.md and docs/*.md.
// Every fenced code block in them is one of:
//   - ```go preceded by <!-- example: DIR FUNC -->: its lines are a run of
//     lines of the body of FUNC, an Example function in DIR's _test.go
//     files, which go vet and go test compile (and run, where it has an
//     Output comment);
//   - ```sh, or ```console whose commands start with "$ ": every command is
//     checked (shardid commands against the CLI built from this tree, go
//     commands against the packages and functions of this tree, export
//     against the variables the CLI reads), or is one of externalTools;
//     the shardid commands that need no server run, and must print what
//     the block shows (a console block's output, a sh line's comment);
//   - ```toml: a shard map, parsed by fleet.Parse;
//   - a block marked <!-- layout specs -->: the first word of every line is
//     a layout spec shardid.ParseLayout takes;
//   - an illustration listed in illustrations below.
//
// A block that is none of these fails. The commands written inline in
// prose, `shardid …` and `go test …`, are checked as a block's are.
func TestDocsCodeBlocks(t *testing.T) {
	cli := newCLI(t)
	used := make([]bool, len(illustrations))
	for _, file := range docFiles(t) {
		blocks, err := readBlocks(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range blocks {
			t.Run(b.name(), func(t *testing.T) {
				listed := slices.IndexFunc(illustrations, func(i struct{ file, first string }) bool {
					return i.file == b.file && i.first == b.firstLine()
				})
				if listed >= 0 {
					used[listed] = true
					return
				}
				switch {
				case b.marker == "layout specs":
					for _, l := range strings.Split(strings.TrimSpace(b.text), "\n") {
						if _, err := shardid.ParseLayout(strings.Fields(l)[0]); err != nil {
							t.Errorf("%v", err)
						}
					}
				case b.marker == "illustration" || b.lang == "text" || b.lang == "":
					t.Errorf("an illustration missing from the test's illustrations list (first line %q): list it, or make it a block the test checks", b.firstLine())
				case strings.HasPrefix(b.marker, "example:"):
					checkExampleBlock(t, b)
				case b.lang == "go":
					t.Errorf("a go block must name the Example function it shows: <!-- example: DIR FUNC --> on the line before the fence")
				case b.lang == "sh" || b.lang == "console":
					checkShellBlock(t, cli, b)
				case b.lang == "toml":
					if _, err := fleet.Parse(b.name(), []byte(b.text), func(string) string { return "postgres://app@db1:5432/app" }); err != nil {
						t.Errorf("the shard map does not parse: %v", err)
					}
				default:
					t.Errorf("a %q block is neither checked nor listed as an illustration", b.lang)
				}
			})
		}
	}
	for i, u := range used {
		if !u {
			t.Errorf("illustrations lists a block that no document holds: %s %q", illustrations[i].file, illustrations[i].first)
		}
	}
	checkInlineCommands(t, cli)
}

// checkExampleBlock checks that a go block is a run of lines of the body
// of the Example function its marker names.
func checkExampleBlock(t *testing.T, b mdBlock) {
	f := strings.Fields(strings.TrimPrefix(b.marker, "example:"))
	if len(f) != 2 || !strings.HasPrefix(f[1], "Example") {
		t.Fatalf("marker %q: want <!-- example: DIR ExampleName -->", b.marker)
	}
	body, err := exampleBody(f[0], f[1])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains("\n"+body, "\n"+b.text) {
		t.Errorf("the block is not a run of lines of %s in %s; the function's body is:\n%s", f[1], f[0], body)
	}
}

// checkShellBlock checks every command of a sh or console block, and runs
// the commands that need no server (serverless) to compare what they print
// with what the block shows: a console block's output lines, or a sh
// line's comment when the command has no pipe or redirection.
func checkShellBlock(t *testing.T, cli *cliHelp, b mdBlock) {
	var cmds []string
	if b.lang == "console" {
		var shown []string
		for _, l := range strings.Split(b.text, "\n") {
			if c, ok := strings.CutPrefix(l, "$ "); ok {
				cmds = append(cmds, c)
			} else if strings.TrimSpace(l) != "" {
				shown = append(shown, l)
			}
		}
		if len(cmds) != 1 {
			t.Fatalf("a console block shows one command ($ …) and its output; this one has %d", len(cmds))
		}
		if words := shellCommands(cmds[0]); len(words) == 1 && cli.serverless(words[0]) {
			cli.compare(t, words[0], shown)
		}
	} else {
		for _, l := range strings.Split(b.text, "\n") {
			c, comment, ok := strings.Cut(l, " # ")
			if !ok || strings.ContainsAny(c, "|<>'\"$") {
				continue
			}
			if words := shellCommands(c); len(words) == 1 && cli.serverless(words[0]) {
				cli.compare(t, words[0], []string{comment})
			}
		}
		cmds = []string{b.text}
	}
	for _, c := range cmds {
		for _, words := range shellCommands(c) {
			checkCommand(t, cli, words)
		}
	}
}

// serverlessCommands are the shardid commands that need no server, which
// the test runs.
var serverlessCommands = [][]string{{"decode"}, {"rotate"}, {"tidb", "spread"}}

// serverless reports whether words are a shardid command the test runs.
func (c *cliHelp) serverless(words []string) bool {
	if len(words) < 2 || words[0] != "shardid" {
		return false
	}
	for _, sc := range serverlessCommands {
		if len(words) > len(sc) && slices.Equal(words[1:1+len(sc)], sc) || slices.Equal(words[1:], sc) {
			return true
		}
	}
	return false
}

// compare runs a shardid command and checks that every line the docs show
// for it is a line of its output, blanks aside.
func (c *cliHelp) compare(t *testing.T, words []string, shown []string) {
	out, err := exec.Command(c.bin, words[1:]...).CombinedOutput()
	line := strings.Join(words, " ")
	if err != nil {
		t.Errorf("%s: %v\n%s", line, err, out)
		return
	}
	got := map[string]bool{}
	for _, l := range strings.Split(string(out), "\n") {
		got[strings.Join(strings.Fields(l), " ")] = true
	}
	for _, l := range shown {
		if !got[strings.Join(strings.Fields(l), " ")] {
			t.Errorf("%s: prints no line %q; it prints:\n%s", line, l, out)
		}
	}
}

var envName = regexp.MustCompile(`^([A-Z][A-Z0-9_]*)=`)

// checkCommand checks one simple command of a shell block.
func checkCommand(t *testing.T, cli *cliHelp, words []string) {
	line := strings.Join(words, " ")
	switch prog := words[0]; {
	case prog == "shardid":
		cli.check(t, words[1:])
	case prog == "go":
		checkGo(t, cli, words[1:])
	case prog == "export":
		src := cliSource(t)
		for _, w := range words[1:] {
			m := envName.FindStringSubmatch(w)
			if m == nil {
				t.Errorf("%s: want export NAME=value", line)
			} else if !strings.Contains(src, `"`+m[1]+`"`) {
				t.Errorf("%s: the CLI (cmd/shardid) reads no variable %s", line, m[1])
			}
		}
	case slices.Contains(externalTools, prog):
	default:
		t.Errorf("%s: %s is not a command this test checks (shardid, go, export) nor one of externalTools", line, prog)
	}
}

var (
	cliSrcOnce sync.Once
	cliSrc     string
)

// cliSource is the text of the CLI's non-test Go files.
func cliSource(t *testing.T) string {
	cliSrcOnce.Do(func() {
		files, _ := filepath.Glob("cmd/shardid/*.go")
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			b, err := os.ReadFile(f)
			if err == nil {
				cliSrc += string(b)
			}
		}
	})
	if cliSrc == "" {
		t.Fatal("cmd/shardid: no source read")
	}
	return cliSrc
}

// checkGo checks a go command: go run of the CLI, go install of the CLI or
// of the goose CLI go.mod pins, and go test/build/vet of packages of this
// tree with -run, -bench and -fuzz patterns that match functions there.
func checkGo(t *testing.T, cli *cliHelp, args []string) {
	line := "go " + strings.Join(args, " ")
	if len(args) == 0 {
		t.Fatalf("%s: no go command", line)
	}
	switch args[0] {
	case "run":
		if len(args) < 2 || args[1] != "./cmd/shardid" {
			t.Errorf("%s: go run only of ./cmd/shardid", line)
			return
		}
		cli.check(t, args[2:])
	case "install":
		tags := ""
		for i := 1; i < len(args); i++ {
			a := args[i]
			if a == "-tags" && i+1 < len(args) {
				i++
				tags = args[i]
				continue
			}
			if pkg, version, ok := strings.Cut(a, "@"); ok {
				if pkg != "github.com/pressly/goose/v3/cmd/goose" {
					t.Errorf("%s: installs %s, which the docs have no business installing", line, pkg)
				} else if want := goModVersion(t, "github.com/pressly/goose/v3"); version != want {
					t.Errorf("%s: goose %s; go.mod requires %s", line, version, want)
				} else if want := strings.ReplaceAll(testsrv.GooseTags, " ", ","); tags != want {
					t.Errorf("%s: goose built with -tags %q; the tests build it with -tags %s (every driver left out that shardid writes no migrations for)", line, tags, want)
				}
				continue
			}
			checkPackages(t, line, []string{a})
		}
	case "test", "build", "vet":
		var pkgs []string
		dir := "." // -C: the packages are that directory's (a module of its own under this tree)
		patterns := map[string]string{}
		for i := 1; i < len(args); i++ {
			a := args[i]
			if !strings.HasPrefix(a, "-") {
				pkgs = append(pkgs, a)
				continue
			}
			name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
			switch name {
			case "short", "v", "update", "race", "json":
				continue
			}
			if !hasValue && i+1 < len(args) {
				i++
				value = args[i]
			}
			switch name {
			case "C":
				dir = "./" + filepath.ToSlash(filepath.Clean(value))
			case "run":
				patterns["Test"] = value
			case "bench":
				patterns["Benchmark"] = value
			case "fuzz":
				patterns["Fuzz"] = value
			}
		}
		for i, p := range pkgs {
			if dir != "." {
				pkgs[i] = dir + "/" + strings.TrimPrefix(p, "./")
			}
		}
		dirs := checkPackages(t, line, pkgs)
		for kind, pattern := range patterns {
			checkPattern(t, line, kind, pattern, dirs)
		}
	default:
		t.Errorf("%s: go %s is not a command this test checks", line, args[0])
	}
}

// checkPackages checks that each package pattern names directories of this
// tree holding Go files, and returns them (every directory below for ...).
func checkPackages(t *testing.T, line string, pkgs []string) []string {
	var dirs []string
	for _, p := range pkgs {
		if !strings.HasPrefix(p, ".") {
			t.Errorf("%s: package %s is not a path in this tree", line, p)
			continue
		}
		root, recursive := strings.CutSuffix(p, "/...")
		root = filepath.Clean(root)
		before := len(dirs)
		filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return err
			}
			if path != root && (!recursive || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			if gos, _ := filepath.Glob(filepath.Join(path, "*.go")); len(gos) > 0 {
				dirs = append(dirs, filepath.ToSlash(path))
			}
			return nil
		})
		if len(dirs) == before {
			t.Errorf("%s: no Go package at %s", line, p)
		}
	}
	return dirs
}

// checkPattern checks that a -run, -bench or -fuzz pattern other than ^$
// and XXX matches at least one function of its kind in dirs (the part before the
// first / for subtests).
func checkPattern(t *testing.T, line, kind, pattern string, dirs []string) {
	if pattern == "^$" || pattern == "XXX" { // the idioms for "none"
		return
	}
	re, err := regexp.Compile(strings.SplitN(pattern, "/", 2)[0])
	if err != nil {
		t.Errorf("%s: %v", line, err)
		return
	}
	funcs, err := treeTestFuncs()
	if err != nil {
		t.Fatal(err)
	}
	for name, where := range funcs {
		if !strings.HasPrefix(name, kind) || !re.MatchString(name) {
			continue
		}
		for _, dir := range dirs {
			if slices.Contains(where, dir) {
				return
			}
		}
	}
	t.Errorf("%s: %q matches no %s function in %s", line, pattern, kind, strings.Join(dirs, " "))
}

var (
	treeFuncsOnce sync.Once
	treeFuncs     map[string][]string
	treeFuncsErr  error
)

// treeTestFuncs is testFuncs of the whole tree, read once.
func treeTestFuncs() (map[string][]string, error) {
	treeFuncsOnce.Do(func() { treeFuncs, treeFuncsErr = testFuncs(".") })
	return treeFuncs, treeFuncsErr
}

// goModVersion returns the version go.mod requires of module.
func goModVersion(t *testing.T, module string) string {
	data, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*(?:require\s+)?` + regexp.QuoteMeta(module) + `\s+(\S+)`).FindSubmatch(data)
	if m == nil {
		t.Fatalf("go.mod requires no %s", module)
	}
	return string(m[1])
}

// cliHelp runs the CLI built from this tree for its help texts, once per
// command.
type cliHelp struct {
	bin  string
	mu   sync.Mutex
	help map[string]helpText
}

// helpText is what "shardid ARGS -h" printed, and whether it exited 0.
type helpText struct {
	out string
	ok  bool
}

// newCLI builds ./cmd/shardid into a temporary directory.
func newCLI(t *testing.T) *cliHelp {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "shardid")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/shardid").CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/shardid: %v\n%s", err, out)
	}
	return &cliHelp{bin: bin, help: map[string]helpText{}}
}

// helpOf returns what "shardid ARGS -h" prints and whether it exited 0.
func (c *cliHelp) helpOf(args ...string) (string, bool) {
	key := strings.Join(args, " ")
	c.mu.Lock()
	defer c.mu.Unlock()
	h, ok := c.help[key]
	if !ok {
		out, err := exec.Command(c.bin, append(args, "-h")...).CombinedOutput()
		h = helpText{out: string(out), ok: err == nil}
		c.help[key] = h
	}
	return h.out, h.ok
}

var listedName = regexp.MustCompile(`(?m)^  ([a-z][a-z0-9-]*)\s`)

// names lists the commands or subcommands a help text lists after its
// heading line ("commands:" or "subcommands:").
func names(help, heading string) []string {
	i := strings.Index(help, "\n"+heading+"\n")
	if i < 0 {
		return nil
	}
	var out []string
	for _, m := range listedName.FindAllStringSubmatch(help[i:], -1) {
		out = append(out, m[1])
	}
	return out
}

// check checks a shardid command line (without the program name): the
// command and its subcommand exist, and every flag it names appears in the
// command's help.
func (c *cliHelp) check(t *testing.T, args []string) {
	line := "shardid " + strings.Join(args, " ")
	top, ok := c.helpOf()
	if !ok {
		t.Fatalf("shardid -h failed:\n%s", top)
	}
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help" || args[0] == "--version") {
		return // the program's own flags
	}
	if len(args) == 0 || !slices.Contains(names(top, "commands:"), args[0]) {
		t.Errorf("%s: no such command (shardid -h lists %v)", line, names(top, "commands:"))
		return
	}
	path, rest := args[:1], args[1:]
	group, ok := c.helpOf(args[0])
	if !ok {
		t.Errorf("%s: shardid %s -h failed:\n%s", line, args[0], group)
		return
	}
	if subs := names(group, "subcommands:"); subs != nil {
		if len(rest) == 0 || !slices.Contains(subs, rest[0]) {
			t.Errorf("%s: shardid %s has the subcommands %v", line, args[0], subs)
			return
		}
		path, rest = args[:2], args[2:]
	}
	help, ok := c.helpOf(path...)
	if !ok {
		t.Errorf("%s: shardid %s -h failed:\n%s", line, strings.Join(path, " "), help)
		return
	}
	for _, f := range flagNames(rest) {
		if f == "h" || f == "help" {
			continue
		}
		if !regexp.MustCompile(`(^|[^a-z0-9-])--?` + regexp.QuoteMeta(f) + `([^a-z0-9-]|$)`).MatchString(help) {
			t.Errorf("%s: shardid %s has no flag -%s", line, strings.Join(path, " "), f)
		}
	}
}

// inlineExempt are the pages whose inline commands checkInlineCommands
// leaves alone, with the reason.
var inlineExempt = map[string]string{}

// checkInlineCommands checks the commands written inline in prose
// (`shardid …`, `go test …`) as a block's are checked.
func checkInlineCommands(t *testing.T, cli *cliHelp) {
	span := regexp.MustCompile("`((?:shardid|go test) [^`]+)`")
	for _, file := range docFiles(t) {
		if _, ok := inlineExempt[file]; ok {
			continue
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var prose strings.Builder
		inBlock := false
		for _, l := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(l, "```") {
				inBlock = !inBlock
				prose.WriteString("\n\n")
				continue
			}
			if !inBlock {
				prose.WriteString(strings.TrimSpace(l) + " ")
			}
		}
		for _, m := range span.FindAllStringSubmatch(prose.String(), -1) {
			t.Run(file+": inline "+m[1], func(t *testing.T) {
				for _, c := range alternatives(m[1]) {
					for _, words := range shellCommands(c) {
						if len(words) == 2 && words[0] == "shardid" && cli.isGroup(words[1]) {
							continue // a group named alone: shardid pg
						}
						checkCommand(t, cli, words)
					}
				}
			})
		}
	}
}

// alternatives expands the one word of an inline command written with
// alternatives, "shardid pg up\|down" (a table cell's escaped bar), into
// one command per alternative.
func alternatives(cmd string) []string {
	words := strings.Fields(cmd)
	for i, w := range words {
		if !strings.Contains(w, `\|`) {
			continue
		}
		var out []string
		for _, alt := range strings.Split(w, `\|`) {
			out = append(out, strings.Join(append(append(slices.Clone(words[:i]), alt), words[i+1:]...), " "))
		}
		return out
	}
	return []string{cmd}
}

// isGroup reports whether name is a shardid command with subcommands.
func (c *cliHelp) isGroup(name string) bool {
	help, ok := c.helpOf(name)
	return ok && names(help, "subcommands:") != nil
}

// TestDocsTestCommand: the README's test command (the line of its
// fresh-machine block commented "the test command") is a line of .ci/run,
// so CI runs what the README tells a newcomer to run.
func TestDocsTestCommand(t *testing.T) {
	blocks, err := readBlocks("README.md")
	if err != nil {
		t.Fatal(err)
	}
	var cmd string
	for _, b := range blocks {
		for _, l := range strings.Split(b.text, "\n") {
			if c, comment, ok := strings.Cut(l, "#"); ok && strings.Contains(comment, "the test command") {
				cmd = strings.TrimSpace(c)
			}
		}
	}
	if cmd == "" {
		t.Fatal(`README.md: no line commented "the test command"`)
	}
	ci, err := os.ReadFile(".ci/run")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(ci), "\n") {
		if strings.TrimSpace(l) == cmd {
			return
		}
	}
	t.Errorf("README's test command %q is not a line of .ci/run", cmd)
}

// TestDocsNameRealFunctions: every Test, Benchmark, Fuzz or Example
// function the docs name exists in the tree.
func TestDocsNameRealFunctions(t *testing.T) {
	funcs, err := treeTestFuncs()
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`\b(?:Test|Benchmark|Fuzz|Example)[A-Z_]\w*`)
	for _, file := range docFiles(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range re.FindAllString(string(data), -1) {
			if _, ok := funcs[name]; !ok {
				t.Errorf("%s names %s, which no _test.go file of the tree defines", file, name)
			}
		}
	}
}

// TestDocsGuaranteesProved: every row of the tables in docs/guarantees.md
// (a promise, when it holds, what proves it) names in its last column at
// least one test function that exists.
func TestDocsGuaranteesProved(t *testing.T) {
	funcs, err := treeTestFuncs()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("docs/guarantees.md")
	if err != nil {
		t.Fatal(err)
	}
	testName := regexp.MustCompile(`\bTest[A-Z]\w*`)
	rows := 0
	for n, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "|") || strings.HasPrefix(line, "|---") || strings.HasPrefix(line, "| promise") {
			continue
		}
		rows++
		cells := strings.Split(strings.ReplaceAll(strings.Trim(line, "| "), `\|`, "\x00"), "|")
		proof := testName.FindAllString(cells[len(cells)-1], -1)
		if len(proof) == 0 {
			t.Errorf("docs/guarantees.md:%d: no test named in the last column: %s", n+1, line)
		}
		for _, p := range proof {
			if _, ok := funcs[p]; !ok {
				t.Errorf("docs/guarantees.md:%d: %s does not exist", n+1, p)
			}
		}
	}
	if rows < 10 {
		t.Errorf("docs/guarantees.md: %d promises found in its tables; the page lost its tables", rows)
	}
}

// TestDocsLinks: every relative link of the docs reaches a file of the
// tree, and a link to a heading of a Markdown file (#anchor) reaches one of
// its headings, named as GitHub names them.
func TestDocsLinks(t *testing.T) {
	link := regexp.MustCompile(`\]\(([^)#\s]*)(?:#([^)\s]*))?\)`)
	for _, file := range docFiles(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(data), -1) {
			target, anchor := m[1], m[2]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path := file
			if target != "" {
				path = filepath.Join(filepath.Dir(file), target)
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s: link to %s: %v", file, target, err)
				continue
			}
			if anchor != "" && strings.HasSuffix(path, ".md") && !slices.Contains(headingAnchors(t, path), anchor) {
				t.Errorf("%s: link to %s#%s: %s has no such heading (it has %v)", file, target, anchor, path, headingAnchors(t, path))
			}
		}
	}
}

// headingAnchors returns the anchors GitHub gives the headings of a
// Markdown file: lower case, spaces as hyphens, punctuation other than
// hyphens and underscores dropped.
func headingAnchors(t *testing.T, path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var anchors []string
	inBlock := false
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "```") {
			inBlock = !inBlock
		}
		if inBlock || !strings.HasPrefix(l, "#") {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(strings.TrimLeft(l, "#"))) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		anchors = append(anchors, b.String())
	}
	return anchors
}

// TestDocsFrontDoor: README.md stays a front page, and no document speaks
// of the project's past.
func TestDocsFrontDoor(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "\n"); n > 250 {
		t.Errorf("README.md has %d lines; at most 250: the reference belongs in docs/", n)
	}
	history := regexp.MustCompile(`(?i)\bused to\b|\bpreviously\b|\bprevious version\b|\bbefore the [a-z ,]*changes?\b|\bthis readme\b|\bolder shardid\b`)
	for _, file := range docFiles(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range strings.Split(string(data), "\n") {
			if m := history.FindString(line); m != "" {
				t.Errorf("%s:%d: %q speaks of the project's past: say what it is", file, n+1, m)
			}
		}
	}
}

// TestDocsOperationsKeepsRunbooks: docs/operations.md holds the runbooks
// (what to do, step by step); what a command or client does, and why, lives
// in the per-path docs it links to, so the runbooks stay short enough to
// follow in an incident: at most 450 lines.
func TestDocsOperationsKeepsRunbooks(t *testing.T) {
	data, err := os.ReadFile("docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "\n"); n > 450 {
		t.Errorf("docs/operations.md has %d lines (at most 450): move what explains a command or a client to its per-path doc, keep the steps", n)
	}
}
