package dev.periscope.harness.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.Cancellation;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The approval prompt's conversation with a live terminal: what counts as an answer, and when there
 * is none.
 */
class TerminalTest {
  private final Terminal terminal = new Terminal(Path.of("/dev/tty"), Duration.ofMillis(400));

  @Test
  void keysTypedBeforeThePromptAreDroppedAndEnterInRawModeEndsTheAnswer() throws Exception {
    PipedOutputStream keys = new PipedOutputStream();
    PipedInputStream device = new PipedInputStream(keys);
    keys.write("y\n".getBytes(StandardCharsets.UTF_8)); // typed ahead, before the question
    ByteArrayOutputStream shown = new ByteArrayOutputStream();
    Thread typist =
        new Thread(
            () -> {
              try {
                awaitPrompt(shown);
                keys.write(
                    "n\r"
                        .getBytes(
                            StandardCharsets.UTF_8)); // a terminal in raw mode sends \r for Enter
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    typist.start();
    Terminal patient = new Terminal(Path.of("/dev/tty"), Duration.ofSeconds(30));
    assertEquals(
        Optional.of("n"), patient.answer(device, shown, "Allow? ", Cancellation.none(), true));
    assertEquals("Allow? ", shown.toString(StandardCharsets.UTF_8));
    typist.join();
  }

  @Test
  void noAnswerInTimeIsNo() throws Exception {
    PipedInputStream silent = new PipedInputStream(new PipedOutputStream());
    ByteArrayOutputStream shown = new ByteArrayOutputStream();
    assertEquals(
        Optional.empty(), terminal.answer(silent, shown, "Allow? ", Cancellation.none(), true));
    assertTrue(
        shown.toString(StandardCharsets.UTF_8).endsWith("(no answer: denied)\n"), shown.toString());
  }

  @Test
  void cancellingTheCallEndsTheWait() throws Exception {
    PipedInputStream silent = new PipedInputStream(new PipedOutputStream());
    Cancellation cancellation = Cancellation.none();
    Terminal patient = new Terminal(Path.of("/dev/tty"), Duration.ofHours(1));
    ByteArrayOutputStream shown = new ByteArrayOutputStream();
    new Thread(
            () -> {
              try {
                awaitPrompt(shown); // the question is out: the wait for its answer has begun
              } catch (InterruptedException e) {
                return;
              }
              cancellation.cancel();
            })
        .start();
    Optional<String> answer =
        assertTimeoutPreemptively(
            Duration.ofSeconds(30),
            () -> patient.answer(silent, shown, "Allow? ", cancellation, true));
    assertEquals(Optional.empty(), answer);
  }

  @Test
  void anEndlessLineIsNoAnswer() throws Exception {
    byte[] endless = "y".repeat(10_000).getBytes(StandardCharsets.UTF_8);
    assertEquals(
        Optional.empty(),
        terminal.answer(
            new ByteArrayInputStream(endless),
            new ByteArrayOutputStream(),
            "Allow? ",
            Cancellation.none(),
            true));
  }

  /** Waits until the prompt was written, which happens after type-ahead was dropped. */
  private static void awaitPrompt(ByteArrayOutputStream shown) throws InterruptedException {
    while (shown.size() == 0) {
      Thread.onSpinWait();
      Thread.sleep(1);
    }
  }
}
