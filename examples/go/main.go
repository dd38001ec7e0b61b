// A cardarena bot in Go for Slippery Sam and Svara, written from proto/ and docs/protocol.md alone.
//
//	sh generate.sh            # the protocol's Go code into ./cardarenav1, from ../../proto
//	go run . --port 50061     # --port 0: a free port; prints "listening on 127.0.0.1:PORT"
//
// Structure, the same as examples/node/bot.js and examples/python/bot.py (which also play rummy):
//
//	describe()                  who the bot is and what it plays
//	slipperySam(view, request)  one Slippery Sam decision -> SlipperySamAction  (rules §1)
//	svara(view, request)        one Svara decision        -> SvaraAction        (rules §2)
//	main()                      the gRPC server: cardarena.v1.Bot (Describe, Act, ActStream) and
//	                            grpc.health.v1.Health
//
// The referee calls ActStream where the bot serves it: one stream per worker process, carrying the
// decisions of all its games, each request with an id its answer repeats (docs/protocol.md, "The two
// transports"). Act, one call per decision, is served too: the referee falls back to it.
package main

//go:generate sh generate.sh

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	pb "cardarena.example/gobot/cardarenav1"
)

const (
	ranks = "23456789TJQKA"
	suits = "cdhs"
)

func describe() *pb.DescribeResponse {
	return &pb.DescribeResponse{
		Name:     "go-example",
		Version:  "1.0.0",
		Author:   "cardarena examples",
		Games:    []pb.Game{pb.Game_GAME_SLIPPERY_SAM, pb.Game_GAME_SVARA},
		Capacity: 4, // games at once; requests can overlap anyway (each is decided on a goroutine of its own)
	}
}

// -- Slippery Sam (rules §1) ------------------------------------------------------------------

// winChance is the chance that one of hand is of the turned card's suit and strictly higher, the
// turned card being any card this seat has not seen (rules §1.5).
func winChance(hand []string, seen map[string]bool) float64 {
	best := map[byte]int{}
	for _, c := range hand {
		r := strings.IndexByte(ranks, c[0])
		if b, ok := best[c[1]]; !ok || r > b {
			best[c[1]] = r
		}
	}
	unknown, wins := 0, 0
	for r := 0; r < len(ranks); r++ {
		for s := 0; s < len(suits); s++ {
			if seen[string([]byte{ranks[r], suits[s]})] {
				continue
			}
			unknown++
			if b, ok := best[suits[s]]; ok && r < b {
				wins++
			}
		}
	}
	if unknown == 0 {
		return 0
	}
	return float64(wins) / float64(unknown)
}

func slipperySam(view *pb.SlipperySamView, request *pb.ActRequest) *pb.SlipperySamAction {
	if view.Decision == pb.SlipperySamDecision_SLIPPERY_SAM_DECISION_KITTY {
		return &pb.SlipperySamAction{Amount: view.MinAmount} // the smallest kitty the rules allow (rules §1.3)
	}
	seen := map[string]bool{}
	for _, c := range append(append([]string{}, view.Hand...), view.Turned...) {
		seen[c] = true
	}
	for _, shot := range view.Shots {
		for _, c := range shot.Cards {
			seen[c] = true
		}
	}
	p := winChance(view.Hand, seen)
	if p <= 0.5 {
		return &pb.SlipperySamAction{Amount: view.MinAmount}
	}
	stake := uint32((2*p - 1) * float64(view.Tokens[request.Seat])) // a Kelly fraction of own tokens
	if stake < view.MinAmount {
		stake = view.MinAmount
	}
	if stake > view.MaxAmount {
		stake = view.MaxAmount
	}
	return &pb.SlipperySamAction{Amount: stake}
}

// -- Svara (rules §2) -------------------------------------------------------------------------

var svaraValue = map[byte]int{'A': 11, 'K': 10, 'Q': 10, 'J': 10, 'T': 10, '9': 9, '8': 8, '7': 7, '6': 6}

type svaraCard struct {
	rank, suit byte
	value      int
}

// pointsOf gives the hand points of cards (rules §2.2).
func pointsOf(cards []svaraCard) int {
	best, sameRank, total, aces := 0, true, 0, 0
	for _, c := range cards {
		if c.value > best {
			best = c.value // the highest single card
		}
		total += c.value
		sameRank = sameRank && c.rank == cards[0].rank
		if c.rank == 'A' {
			aces++
		}
	}
	for s := 0; s < len(suits); s++ {
		sum, n := 0, 0
		for _, c := range cards {
			if c.suit == suits[s] {
				sum, n = sum+c.value, n+1
			}
		}
		if n >= 2 && sum > best {
			best = sum
		}
	}
	if sameRank && total > best {
		best = total
	}
	if aces >= 2 && best < 22 {
		best = 22
	}
	return best
}

// svaraPoints counts the szacha as 11, standing for whichever card scores most (rules §2.2).
func svaraPoints(hand []string, szacha string) int {
	var natural []svaraCard
	for _, c := range hand {
		if c != szacha {
			natural = append(natural, svaraCard{c[0], c[1], svaraValue[c[0]]})
		}
	}
	if len(natural) == len(hand) {
		return pointsOf(natural)
	}
	best := 0
	for _, r := range []byte("AKQJT9876") {
		for s := 0; s < len(suits); s++ {
			if p := pointsOf(append(append([]svaraCard{}, natural...), svaraCard{r, suits[s], 11})); p > best {
				best = p
			}
		}
	}
	return best
}

func svara(view *pb.SvaraView, request *pb.ActRequest) *pb.SvaraAction {
	can := func(move pb.SvaraMove) bool {
		for _, m := range view.Legal.GetMoves() {
			if m == move {
				return true
			}
		}
		return false
	}
	points := 0
	if view.Looked {
		points = svaraPoints(view.Hand, view.Szacha)
	}
	switch view.Decision {
	case pb.SvaraDecision_SVARA_DECISION_VOTE:
		if view.Looked && points >= 18 {
			return &pb.SvaraAction{Move: pb.SvaraMove_SVARA_MOVE_REFUSE}
		}
		return &pb.SvaraAction{Move: pb.SvaraMove_SVARA_MOVE_ACCEPT}
	case pb.SvaraDecision_SVARA_DECISION_JOIN:
		inSvara := view.InSvara // who is in the coming svara (older platforms sent it in in_play only)
		if len(inSvara) == 0 {
			inSvara = view.InPlay
		}
		players := 0
		for _, in := range inSvara {
			if in {
				players++
			}
		}
		cost := view.Legal.GetJoinCost()
		if float64(view.Bank+cost)/float64(players+1) > float64(cost) {
			return &pb.SvaraAction{Move: pb.SvaraMove_SVARA_MOVE_JOIN}
		}
		return &pb.SvaraAction{Move: pb.SvaraMove_SVARA_MOVE_DECLINE}
	}
	// A betting turn. LOOK does not end it: the referee asks again with the hand filled (rules §2.5).
	switch {
	case can(pb.SvaraMove_SVARA_MOVE_LOOK):
		return &pb.SvaraAction{Move: pb.SvaraMove_SVARA_MOVE_LOOK}
	case can(pb.SvaraMove_SVARA_MOVE_SEE) && points >= 21:
		return &pb.SvaraAction{Move: pb.SvaraMove_SVARA_MOVE_SEE}
	case can(pb.SvaraMove_SVARA_MOVE_STAKE) && points >= 25:
		return &pb.SvaraAction{Move: pb.SvaraMove_SVARA_MOVE_STAKE, Amount: view.Legal.GetStakeMax()}
	case can(pb.SvaraMove_SVARA_MOVE_STAKE) && points >= 18:
		return &pb.SvaraAction{Move: pb.SvaraMove_SVARA_MOVE_STAKE, Amount: view.Legal.GetStakeMin()}
	}
	return &pb.SvaraAction{Move: pb.SvaraMove_SVARA_MOVE_FOLD}
}

// -- the server -------------------------------------------------------------------------------

// decide answers one request, or says why not with a status: UNIMPLEMENTED for a game this bot does
// not play, INTERNAL for a bug of its own (a panic, logged).
func decide(request *pb.ActRequest) (response *pb.ActResponse, err error) {
	defer func() {
		if bug := recover(); bug != nil {
			log.Printf("game %s seat %d decision %d: %v", request.GameId, request.Seat, request.Decision, bug)
			response, err = nil, status.Errorf(codes.Internal, "%v", bug)
		}
	}()
	switch view := request.View.(type) {
	case *pb.ActRequest_SlipperySam:
		return &pb.ActResponse{Action: &pb.ActResponse_SlipperySam{SlipperySam: slipperySam(view.SlipperySam, request)}}, nil
	case *pb.ActRequest_Svara:
		return &pb.ActResponse{Action: &pb.ActResponse_Svara{Svara: svara(view.Svara, request)}}, nil
	}
	return nil, status.Errorf(codes.Unimplemented, "go-example does not play the game of %T", request.View)
}

type bot struct {
	pb.UnimplementedBotServer
}

func (bot) Describe(context.Context, *pb.DescribeRequest) (*pb.DescribeResponse, error) {
	return describe(), nil
}

// Act: one call per decision.
func (bot) Act(_ context.Context, request *pb.ActRequest) (*pb.ActResponse, error) {
	return decide(request)
}

// ActStream: the decisions of many games on one stream. Each request is decided on a goroutine of its
// own and answered with its id as soon as it is decided, or with an error for that request alone (the
// stream goes on). The stream ends when the referee closes its side, once every answer is sent.
func (bot) ActStream(stream pb.Bot_ActStreamServer) error {
	var sending sync.Mutex     // grpc-go allows one Send at a time
	var deciding sync.WaitGroup // answers not sent yet
	defer deciding.Wait()
	for {
		item, err := stream.Recv()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err // the referee went away (cancelled): nobody waits for the answers
		}
		deciding.Add(1)
		go func(item *pb.ActStreamRequest) {
			defer deciding.Done()
			reply := &pb.ActStreamResponse{Id: item.Id}
			if response, err := decide(item.Request); err != nil {
				st, _ := status.FromError(err)
				reply.Error = &pb.ActStreamError{Code: uint32(st.Code()), Message: st.Message()}
			} else {
				reply.Response = response
			}
			sending.Lock()
			defer sending.Unlock()
			_ = stream.Send(reply) // an error: the stream is gone, and its requests with it
		}(item)
	}
}

func main() {
	port := flag.Int("port", 50061, "the port to listen on, on 127.0.0.1 (0: a free one)")
	flag.Parse()
	listener, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", *port))
	if err != nil {
		fmt.Fprintf(os.Stderr, "cannot listen on 127.0.0.1:%d: %v\n", *port, err)
		os.Exit(1)
	}
	server := grpc.NewServer()
	pb.RegisterBotServer(server, bot{})
	// The platform checks grpc.health.v1 before entry and before every game: "" or "cardarena.v1.Bot" SERVING.
	checks := health.NewServer()
	checks.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
	checks.SetServingStatus("cardarena.v1.Bot", healthpb.HealthCheckResponse_SERVING)
	healthpb.RegisterHealthServer(server, checks)
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		<-stop
		// A second of grace for the decisions in flight, then the rest is cut: a referee keeps its stream open
		// between games, and GracefulStop alone would wait for it for ever (the Python SDK stops the same way).
		cut := time.AfterFunc(time.Second, server.Stop)
		server.GracefulStop()
		cut.Stop()
	}()
	fmt.Printf("listening on %s\n", listener.Addr())
	if err := server.Serve(listener); err != nil {
		log.Fatal(err)
	}
}
