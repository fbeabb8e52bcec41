package repotest_test

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// mdBlock is one fenced code block of a Markdown file.
type mdBlock struct {
	file   string // path relative to the repository root
	line   int    // line of the opening fence
	lang   string // the fence's info string ("" for a bare fence)
	marker string // the HTML comment on the line before the fence, without <!-- -->, or ""
	text   string // the block's lines, each ending in \n
}

// name identifies the block in test output: file and line.
func (b mdBlock) name() string { return fmt.Sprintf("%s:%d", b.file, b.line) }

// firstLine is the block's first non-blank line, trimmed: what the
// illustration list names a block by, so that the list survives lines
// added above it.
func (b mdBlock) firstLine() string {
	for _, l := range strings.Split(b.text, "\n") {
		if s := strings.TrimSpace(l); s != "" {
			return s
		}
	}
	return ""
}

var htmlComment = regexp.MustCompile(`^<!--\s*(.*?)\s*-->$`)

// readBlocks returns the fenced code blocks of a Markdown file (``` fences
// only; the docs use no ~~~), with the HTML comment that precedes each.
func readBlocks(path string) ([]mdBlock, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var (
		blocks []mdBlock
		cur    *mdBlock
		prev   string // the last non-blank line outside a block
	)
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		fence := strings.HasPrefix(line, "```")
		switch {
		case cur == nil && fence:
			cur = &mdBlock{file: filepath.ToSlash(path), line: n, lang: strings.TrimSpace(line[3:])}
			if m := htmlComment.FindStringSubmatch(prev); m != nil {
				cur.marker = m[1]
			}
		case cur != nil && strings.TrimSpace(line) == "```":
			blocks = append(blocks, *cur)
			cur, prev = nil, ""
		case cur != nil:
			cur.text += line + "\n"
		case strings.TrimSpace(line) != "":
			prev = strings.TrimSpace(line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if cur != nil {
		return nil, fmt.Errorf("%s:%d: a code block is never closed", path, cur.line)
	}
	return blocks, nil
}

// shellCommands splits a shell block into simple commands, each a list of
// words: line continuations joined, comments dropped, quotes removed,
// split at ;, &&, || and |, redirections and their targets dropped, and
// leading VAR=value assignments dropped. It knows what the docs write,
// not the whole shell grammar ($(…) stays inside one word only when it
// holds no blank).
func shellCommands(text string) [][]string {
	text = strings.ReplaceAll(text, "\\\n", " ")
	var cmds [][]string
	for _, line := range strings.Split(text, "\n") {
		var (
			words  []string
			word   strings.Builder
			inWord bool
			quote  rune
		)
		flushWord := func() {
			if inWord {
				words = append(words, word.String())
			}
			word.Reset()
			inWord = false
		}
		flushCmd := func() {
			flushWord()
			if c := cleanCommand(words); len(c) > 0 {
				cmds = append(cmds, c)
			}
			words = nil
		}
		rs := []rune(line)
	scan:
		for i := 0; i < len(rs); i++ {
			r := rs[i]
			switch {
			case quote != 0:
				if r == quote {
					quote = 0
				} else {
					word.WriteRune(r)
				}
			case r == '\'' || r == '"':
				quote, inWord = r, true
			case r == '#' && !inWord:
				break scan
			case r == ' ' || r == '\t':
				flushWord()
			case r == ';' || r == '|' || r == '&':
				flushCmd()
				if i+1 < len(rs) && (rs[i+1] == '|' || rs[i+1] == '&') {
					i++
				}
			default:
				word.WriteRune(r)
				inWord = true
			}
		}
		flushCmd()
	}
	return cmds
}

var assignment = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

// cleanCommand drops redirections (with their targets) and leading
// assignments from a simple command's words.
func cleanCommand(words []string) []string {
	var out []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		if strings.HasPrefix(w, ">") || strings.HasPrefix(w, "<") || strings.HasPrefix(w, "2>") {
			if w == ">" || w == "<" || w == ">>" || w == "2>" || w == "2>>" {
				i++ // the target is the next word
			}
			continue
		}
		if len(out) == 0 && assignment.MatchString(w) {
			continue
		}
		out = append(out, w)
	}
	return out
}

// flagNames returns the names of the flags among a command's words
// (--dsn, -n, --layout=js53, [--step 1000] give dsn, n, layout, step).
func flagNames(words []string) []string {
	var names []string
	for _, w := range words {
		w = strings.Trim(w, "[]")
		if len(w) < 2 || w[0] != '-' || w == "--" {
			continue
		}
		name := strings.TrimLeft(w, "-")
		if i := strings.IndexByte(name, '='); i >= 0 {
			name = name[:i]
		}
		if name != "" {
			names = append(names, name)
		}
	}
	return names
}

// exampleBody returns the body of the function called name in the _test.go
// files of dir, one tab of indentation taken off each line, or an error
// saying what is missing.
func exampleBody(dir, name string) (string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		return "", err
	}
	fset := token.NewFileSet()
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			return "", err
		}
		f, err := parser.ParseFile(fset, path, src, 0)
		if err != nil {
			return "", err
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || fn.Name.Name != name {
				continue
			}
			body := string(src[fset.Position(fn.Body.Lbrace).Offset+1 : fset.Position(fn.Body.Rbrace).Offset])
			var b strings.Builder
			for _, l := range strings.Split(strings.Trim(body, "\n"), "\n") {
				b.WriteString(strings.TrimPrefix(l, "\t") + "\n")
			}
			return b.String(), nil
		}
	}
	return "", fmt.Errorf("no func %s in %s/*_test.go", name, dir)
}

// testFuncs returns the names of the Test, Benchmark, Fuzz and Example
// functions of the _test.go files under root (every package), by name.
func testFuncs(root string) (map[string][]string, error) {
	found := map[string][]string{}
	re := regexp.MustCompile(`(?m)^func ((?:Test|Benchmark|Fuzz|Example)\w*)\(`)
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range re.FindAllSubmatch(src, -1) {
			found[string(m[1])] = append(found[string(m[1])], filepath.ToSlash(filepath.Dir(path)))
		}
		return nil
	})
	return found, err
}
