package oklasim.eaai;

import ginrummy.Card;
import ginrummy.GinRummyPlayer;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * An oklasim strategy as an EAAI Gin Rummy player: starts {@code oklasim agent} and relays every call of
 * the referee to it over the agent protocol (oklasim's docs/agent-protocol.md).
 *
 * <p>Settings, each a system property or else an environment variable:
 * {@code oklasim.strategy} / {@code OKLASIM_STRATEGY} (default {@code simple}),
 * {@code oklasim.rules} / {@code OKLASIM_RULES} (default {@code eaai}),
 * {@code oklasim.seed} / {@code OKLASIM_SEED} (default 0),
 * {@code oklasim.remember} / {@code OKLASIM_REMEMBER} (default 1; 0: each game starts afresh, as in oklasim's engine),
 * {@code oklasim.command} / {@code OKLASIM_COMMAND}: how to start oklasim (default {@code oklasim}),
 * e.g. {@code /path/.venv/bin/oklasim}.
 *
 * <p>The agent process ends with the player: {@link #close()}, or at the latest when the JVM exits.
 * Translation the referee needs: it deals before it shows the upcard (the hand is reported to the agent
 * when the upcard is first seen), it never reports a declined upcard (the passes are inferred from the
 * order of offers), and it starts a new game without saying so (a score of 100 or more, or a hand cut
 * short by a forfeit, ends the agent's game).
 */
public class OklasimPlayer implements GinRummyPlayer, AutoCloseable {
    private static final int GOAL_SCORE = 100;

    private final Process agent;
    private final BufferedWriter toAgent;
    private final BufferedReader fromAgent;
    private final Thread reaper;

    private int me;
    private int starter;
    private Card[] dealt;
    private boolean handReported;
    private boolean handOver = true;
    private int draws;
    private int passes;
    private boolean tookFaceUp;
    private Card pileTop;
    private boolean knocked;
    private ArrayList<ArrayList<Card>> myKnockMelds;
    private int[] scores;

    public OklasimPlayer() {
        this(setting("oklasim.strategy", "OKLASIM_STRATEGY", "simple"));
    }

    public OklasimPlayer(String strategy) {
        List<String> command = new ArrayList<>(Arrays.asList(setting("oklasim.command", "OKLASIM_COMMAND", "oklasim").trim().split("\\s+")));
        command.addAll(Arrays.asList("agent", "--strategy", strategy,
                "--rules", setting("oklasim.rules", "OKLASIM_RULES", "eaai"),
                "--seed", setting("oklasim.seed", "OKLASIM_SEED", "0")));
        // One player object meets the same opponent game after game: what its showdowns showed carries over.
        if (!"0".equals(setting("oklasim.remember", "OKLASIM_REMEMBER", "1"))) command.add("--remember-opponents");
        try {
            agent = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start " + String.join(" ", command) + ": " + e.getMessage(), e);
        }
        toAgent = new BufferedWriter(new OutputStreamWriter(agent.getOutputStream(), StandardCharsets.UTF_8));
        fromAgent = new BufferedReader(new InputStreamReader(agent.getInputStream(), StandardCharsets.UTF_8));
        reaper = new Thread(this::stopAgent, "oklasim-agent-reaper");
        Runtime.getRuntime().addShutdownHook(reaper);
        Map<String, Object> hello = read();
        if (!"hello".equals(hello.get("type")) || !Long.valueOf(1).equals(hello.get("v")))
            throw new IllegalStateException("oklasim agent: expected a protocol 1 hello, got " + hello);
    }

    private static String setting(String property, String variable, String fallback) {
        String value = System.getProperty(property);
        if (value == null) value = System.getenv(variable);
        return value == null || value.isEmpty() ? fallback : value;
    }

    // -- the referee's calls -------------------------------------------------------------------

    @Override
    public void startGame(int playerNum, int startingPlayerNum, Card[] cards) {
        boolean gameOver = scores != null && Math.max(scores[0], scores[1]) >= GOAL_SCORE;
        if (gameOver || !handOver) { // a finished game, or one cut short by a forfeit
            send("{\"type\":\"game_over\"}");
            scores = null;
        }
        me = playerNum;
        starter = startingPlayerNum;
        dealt = cards.clone();
        handReported = false;
        handOver = false;
        draws = passes = 0;
        knocked = false;
        myKnockMelds = null;
    }

    @Override
    public boolean willDrawFaceUpCard(Card card) {
        reportHand(card);
        if (draws > 0) {
            tookFaceUp = "pile".equals(decide("draw").get("from"));
            return tookFaceUp;
        }
        if (me != starter && passes == 0) pass(starter); // we are offered second: the starter declined
        tookFaceUp = Boolean.TRUE.equals(decide("take_upcard").get("take"));
        if (!tookFaceUp) pass(me);
        return tookFaceUp;
    }

    @Override
    public void reportDraw(int playerNum, Card drawnCard) {
        reportHand(drawnCard);
        boolean fromPile = playerNum == me ? tookFaceUp : drawnCard != null;
        if (draws == 0 && !fromPile) // the forced stock draw: whoever was not asked declined too
            while (passes < 2) pass(passes == 0 ? starter : 1 - starter);
        send("{\"type\":\"draw\",\"seat\":" + playerNum + ",\"from\":\"" + (fromPile ? "pile" : "stock") + "\",\"card\":"
                + (drawnCard == null ? "null" : Json.quote(drawnCard.toString())) + "}");
        draws++;
        tookFaceUp = false;
    }

    @Override
    public Card getDiscard() {
        Map<String, Object> answer = decide("discard");
        if (Boolean.TRUE.equals(answer.get("knock"))) myKnockMelds = melds(answer.get("melds"));
        return card(answer.get("card"));
    }

    @Override
    public void reportDiscard(int playerNum, Card discardedCard) {
        pileTop = discardedCard;
        send("{\"type\":\"discard\",\"seat\":" + playerNum + ",\"card\":" + Json.quote(discardedCard.toString()) + "}");
    }

    @Override
    public ArrayList<ArrayList<Card>> getFinalMelds() {
        if (myKnockMelds != null) return copy(myKnockMelds);
        if (!knocked) return null; // play on
        return melds(decide("melds").get("melds"));
    }

    @Override
    public void reportFinalMelds(int playerNum, ArrayList<ArrayList<Card>> melds) {
        if (!knocked) {
            knocked = true;
            send("{\"type\":\"knock\",\"seat\":" + playerNum + "}");
        } else {
            send("{\"type\":\"melds\",\"seat\":" + playerNum + "}");
        }
    }

    @Override
    public void reportScores(int[] scores) {
        this.scores = scores.clone();
        handOver = true;
        send("{\"type\":\"hand_over\",\"scores\":[" + scores[0] + "," + scores[1] + "]}");
    }

    @Override
    public void reportLayoff(int playerNum, Card layoffCard, ArrayList<Card> opponentMeld) {
        send("{\"type\":\"layoff\",\"seat\":" + playerNum + ",\"card\":" + Json.quote(layoffCard.toString()) + "}");
    }

    @Override
    public void reportFinalHand(int playerNum, ArrayList<Card> hand) {
        StringBuilder cards = new StringBuilder();
        for (Card c : hand) cards.append(cards.length() == 0 ? "" : ",").append(Json.quote(c.toString()));
        send("{\"type\":\"final_hand\",\"seat\":" + playerNum + ",\"hand\":[" + cards + "]}");
    }

    /** The last scores the referee reported (null before the first hand's end): forfeits end a game below 100. */
    public int[] lastScores() {
        return scores == null ? null : scores.clone();
    }

    /** Ends the agent process (also done when the JVM exits). */
    @Override
    public void close() {
        stopAgent();
        try {
            Runtime.getRuntime().removeShutdownHook(reaper);
        } catch (IllegalStateException alreadyShuttingDown) {
            // the hook is running or has run: the agent is being stopped anyway
        }
    }

    // -- translation -----------------------------------------------------------------------------

    /** The deal, once the upcard is known: the referee deals before it turns the upcard. */
    private void reportHand(Card seen) {
        if (handReported) return;
        pileTop = seen;
        StringBuilder hand = new StringBuilder();
        for (Card c : dealt) hand.append(hand.length() == 0 ? "" : ",").append(Json.quote(c.toString()));
        String known = scores == null ? "[0,0]" : "[" + scores[0] + "," + scores[1] + "]";
        send("{\"type\":\"new_hand\",\"seat\":" + me + ",\"dealer\":" + (1 - starter) + ",\"hand\":[" + hand
                + "],\"upcard\":" + Json.quote(seen.toString()) + ",\"scores\":" + known + "}");
        handReported = true;
    }

    private void pass(int seat) {
        send("{\"type\":\"pass\",\"seat\":" + seat + "}");
        passes++;
    }

    private static Card card(Object text) {
        if (!(text instanceof String)) throw new IllegalStateException("oklasim agent: no card in its answer: " + text);
        Card card = Card.strCardMap.get(((String) text).toUpperCase());
        if (card == null) throw new IllegalStateException("oklasim agent: unknown card " + text);
        return card;
    }

    private static ArrayList<ArrayList<Card>> melds(Object value) {
        ArrayList<ArrayList<Card>> out = new ArrayList<>();
        for (Object meld : (List<?>) value) {
            ArrayList<Card> cards = new ArrayList<>();
            for (Object text : (List<?>) meld) cards.add(card(text));
            out.add(cards);
        }
        return out;
    }

    private static ArrayList<ArrayList<Card>> copy(ArrayList<ArrayList<Card>> melds) {
        ArrayList<ArrayList<Card>> out = new ArrayList<>();
        for (ArrayList<Card> meld : melds) out.add(new ArrayList<>(meld));
        return out;
    }

    // -- the pipe --------------------------------------------------------------------------------

    private void send(String line) {
        try {
            toAgent.write(line);
            toAgent.write('\n');
        } catch (IOException e) {
            throw dead(e);
        }
    }

    private Map<String, Object> decide(String decision) {
        send("{\"type\":\"decide\",\"decision\":\"" + decision + "\"}");
        try {
            toAgent.flush();
        } catch (IOException e) {
            throw dead(e);
        }
        Map<String, Object> answer = read();
        if (!"answer".equals(answer.get("type")) || !decision.equals(answer.get("decision")))
            throw new IllegalStateException("oklasim agent: expected an answer to " + decision + ", got " + answer);
        return answer;
    }

    /** The next line from the agent; an error line (an event refused earlier, or this request) is thrown. */
    @SuppressWarnings("unchecked")
    private Map<String, Object> read() {
        String line;
        try {
            line = fromAgent.readLine();
        } catch (IOException e) {
            throw dead(e);
        }
        if (line == null) throw dead(null);
        Object value = Json.parse(line);
        if (!(value instanceof Map)) throw new IllegalStateException("oklasim agent: not a JSON object: " + line);
        Map<String, Object> message = (Map<String, Object>) value;
        if ("error".equals(message.get("type")))
            throw new IllegalStateException("oklasim agent refused " + message.get("field") + ": " + message.get("message"));
        return message;
    }

    private IllegalStateException dead(IOException cause) {
        String status = agent.isAlive() ? "" : " (exit status " + agent.exitValue() + ")";
        return new IllegalStateException("oklasim agent stopped answering" + status, cause);
    }

    private void stopAgent() {
        try {
            if (agent.isAlive()) {
                toAgent.write("{\"type\":\"quit\"}\n");
                toAgent.flush();
            }
            toAgent.close();
        } catch (IOException gone) {
            // the agent has gone already
        }
        try {
            if (!agent.waitFor(5, TimeUnit.SECONDS)) agent.destroyForcibly().waitFor();
        } catch (InterruptedException e) {
            agent.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
