package oklasim.eaai;

import ginrummy.GinRummyGame;
import ginrummy.GinRummyPlayer;
import ginrummy.SimpleGinRummyPlayer;

/**
 * Plays games to 100 in the EAAI referee, {@code GinRummyGame.play()}, unmodified: an oklasim strategy
 * against {@code SimpleGinRummyPlayer}, and prints one JSON line with the games, the oklasim player's
 * wins and the forfeits.
 *
 * <p>{@code java -cp BUILD oklasim.eaai.OklasimMatch GAMES [STRATEGY]} (the strategy also from
 * {@code -Doklasim.strategy}). A game counts as forfeited when it ended without a score of 100: the
 * referee ends a game at once on an illegal move.
 */
public final class OklasimMatch {
    private OklasimMatch() {
    }

    public static void main(String[] args) {
        if (args.length < 1 || args.length > 2) {
            System.err.println("usage: OklasimMatch GAMES [STRATEGY]");
            System.exit(2);
        }
        int games = Integer.parseInt(args[0]);
        long started = System.nanoTime();
        int wins = 0, forfeits = 0;
        try (OklasimPlayer ours = args.length == 2 ? new OklasimPlayer(args[1]) : new OklasimPlayer()) {
            GinRummyPlayer simple = new SimpleGinRummyPlayer();
            GinRummyGame.setPlayVerbose(false);
            for (int g = 0; g < games; g++) {
                int winner = new GinRummyGame(ours, simple).play();
                int[] scores = ours.lastScores();
                if (scores == null || scores[winner] < 100) forfeits++;
                if (winner == 0) wins++;
            }
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        System.out.printf("{\"games\":%d,\"wins\":%d,\"forfeits\":%d,\"seconds\":%.2f}%n", games, wins, forfeits, seconds);
    }
}
