package bench

import (
	"context"
	"os"
	"testing"
)

func TestInstructionsScratch(t *testing.T) {
	rep, err := RunInstructions(context.Background(), InstrSettings{Executes: 200, Repeats: 1, Progress: func(s Step) { t.Log(s.What) }})
	if err != nil {
		t.Fatal(err)
	}
	WriteInstructions(os.Stdout, rep, "scratch")
}
