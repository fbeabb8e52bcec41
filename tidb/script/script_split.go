package script

import (
	"slices"
	"strconv"
	"strings"
)

// chunk is one statement of a script as the mysql client sends it, with
// the line it starts on. A client command (source FILE, \. FILE, charset
// …) is a chunk of its own marked client: the mysql client runs it
// itself, up to the end of its line, and never sends it to the server.
type chunk struct {
	text   string
	line   int
	client bool
}

// clientCommands are the mysql client's own commands that a schema script
// may hold at the start of a statement; each runs to the end of its line.
var clientCommands = []string{"source", `\.`, "charset", `\C`, "warnings", `\W`, "nowarning", `\w`, "tee", `\T`, "notee", `\t`, "prompt", `\R`, "rehash", `\#`, "system", `\!`}

// splitScript cuts a script into statements the way the mysql client
// does: at the current delimiter (";" until a DELIMITER command changes
// it) outside quotes and comments; a client command at the start of a
// statement ends at its line.
func splitScript(text string) []chunk {
	var out []chunk
	delim := ";"
	start, line, startLine := 0, 1, 1 // start: the statement's first byte that is not space or a comment
	blank := true                     // nothing but space and comments since the last delimiter
	emit := func(end int) {
		if !blank {
			out = append(out, chunk{text: text[start:end], line: startLine})
		}
	}
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '\n':
			line++
			i++
			if blank {
				startLine = line
			}
			continue
		case blank && (c == ' ' || c == '\t' || c == '\r'):
			i++
			continue
		case blank && hasWordPrefix(text[i:], "DELIMITER"):
			end := strings.IndexByte(text[i:], '\n')
			if end < 0 {
				end = len(text) - i
			}
			if f := strings.Fields(text[i+len("DELIMITER") : i+end]); len(f) > 0 {
				delim = f[0]
			}
			i += end
			continue
		case blank && isClientCommand(text[i:]):
			end := strings.IndexByte(text[i:], '\n')
			if end < 0 {
				end = len(text) - i
			}
			cmd := strings.TrimSpace(text[i : i+end])
			cmd = strings.TrimSpace(strings.TrimSuffix(cmd, delim))
			out = append(out, chunk{text: cmd, line: line, client: true})
			i += end
			continue
		case c == '#' || (c == '-' && strings.HasPrefix(text[i:], "--") && (i+2 == len(text) || strings.ContainsRune(" \t\r\n", rune(text[i+2])))):
			end := strings.IndexByte(text[i:], '\n')
			if end < 0 {
				end = len(text) - i
			}
			i += end
			continue
		case c == '/' && strings.HasPrefix(text[i:], "/*"):
			end := strings.Index(text[i+2:], "*/")
			if end < 0 {
				end = len(text) - i - 4
			}
			seg := text[i : i+end+4]
			if blank && (strings.HasPrefix(seg, "/*!") || strings.HasPrefix(seg, "/*T!") || strings.HasPrefix(seg, "/*M!")) {
				blank, startLine, start = false, line, i
			}
			line += strings.Count(seg, "\n")
			i += len(seg)
			continue
		case c == '\'' || c == '"' || c == '`':
			if blank {
				blank, startLine, start = false, line, i
			}
			j := quoteEnd(text, i)
			line += strings.Count(text[i:j], "\n")
			i = j
			continue
		case strings.HasPrefix(text[i:], delim):
			emit(i)
			i += len(delim)
			blank, startLine = true, line
			continue
		}
		if blank {
			blank, startLine, start = false, line, i
		}
		i++
	}
	emit(len(text))
	return out
}

// quoteEnd returns the index just past the quoted string or name that
// starts at text[i] (', " or `), as MySQL reads it: a backslash escapes
// the next byte inside ' and ", a doubled quote stands for itself.
func quoteEnd(text string, i int) int {
	c := text[i]
	j := i + 1
	for j < len(text) {
		if text[j] == '\\' && c != '`' {
			j += 2
			continue
		}
		if text[j] == c {
			if j+1 < len(text) && text[j+1] == c {
				j += 2
				continue
			}
			break
		}
		j++
	}
	return min(j+1, len(text))
}

// hasWordPrefix reports whether s starts with word (any case) followed by
// a space or tab.
func hasWordPrefix(s, word string) bool {
	return len(s) > len(word) && strings.EqualFold(s[:len(word)], word) && (s[len(word)] == ' ' || s[len(word)] == '\t')
}

// isClientCommand reports a mysql client command at the start of s.
func isClientCommand(s string) bool {
	for _, c := range clientCommands {
		if strings.HasPrefix(c, `\`) {
			if strings.HasPrefix(s, c) && (len(s) == len(c) || strings.ContainsRune(" \t\r\n", rune(s[len(c)]))) {
				return true
			}
			continue
		}
		if hasWordPrefix(s, c) {
			return true
		}
	}
	return false
}

// versionComments returns the versions of the MySQL conditional comments
// (/*!NNNNN … */) in a statement, outside quotes, ascending, each once. A
// /*! … */ without a version runs on every server and has none.
func versionComments(text string) []int {
	var out []int
	eachComment(text, func(start, end, version int) {
		if version > 0 && !slices.Contains(out, version) {
			out = append(out, version)
		}
	})
	slices.Sort(out)
	return out
}

// stripVersions blanks out every conditional comment of version from or
// later, keeping its line breaks so line numbers still hold: what a MySQL
// server older than from would run. It also returns how many it blanked.
func stripVersions(text string, from int) (string, int) {
	var sb strings.Builder
	last, n := 0, 0
	eachComment(text, func(start, end, version int) {
		if version < from {
			return
		}
		sb.WriteString(text[last:start])
		sb.WriteString(strings.Repeat("\n", strings.Count(text[start:end], "\n")))
		sb.WriteByte(' ')
		last = end
		n++
	})
	sb.WriteString(text[last:])
	return sb.String(), n
}

// eachComment calls f for each /*!… */ comment outside quotes, with its
// bounds and its version (0 for none).
func eachComment(text string, f func(start, end, version int)) {
	for i := 0; i < len(text); {
		switch c := text[i]; {
		case c == '\'' || c == '"' || c == '`':
			i = quoteEnd(text, i)
		case strings.HasPrefix(text[i:], "/*!"):
			end := strings.Index(text[i:], "*/")
			if end < 0 {
				return
			}
			j := i + 3
			for j < i+end && j < i+9 && text[j] >= '0' && text[j] <= '9' {
				j++
			}
			v, _ := strconv.Atoi(text[i+3 : j])
			f(i, i+end+2, v)
			i += end + 2
		case strings.HasPrefix(text[i:], "/*"):
			end := strings.Index(text[i+2:], "*/")
			if end < 0 {
				return
			}
			i += end + 4
		case c == '#' || strings.HasPrefix(text[i:], "-- "):
			end := strings.IndexByte(text[i:], '\n')
			if end < 0 {
				return
			}
			i += end
		default:
			i++
		}
	}
}

// ClientCommand reports a statement that is a mysql client command
// (source, charset, …), not SQL.
func (st *Statement) ClientCommand() bool { return isClientCommand(st.SQL) }
