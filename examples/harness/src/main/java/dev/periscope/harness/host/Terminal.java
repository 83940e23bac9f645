package dev.periscope.harness.host;

import dev.periscope.api.Cancellation;
import java.io.ByteArrayOutputStream;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * The user's terminal, where approval prompts are asked. It is the terminal device itself ({@code
 * /dev/tty}), not standard input and output: under {@code harness mcp} those carry the protocol,
 * and under {@code harness run} they may be redirected. Each prompt opens the device, drops keys
 * typed before it, writes the question and reads one line (ended by Enter as a terminal in raw mode
 * sends it, too), for at most {@link #ANSWER_WITHIN}.
 */
public final class Terminal {
  /**
   * Names the device; {@code none} means there is no terminal, so approvals follow the rules alone.
   */
  static final String DEVICE_VARIABLE = "HARNESS_TTY";

  /** How long a prompt waits for its answer before it counts as no. */
  static final Duration ANSWER_WITHIN = Duration.ofSeconds(60);

  private static final int MAX_ANSWER = 64;

  private final Path device;
  private final Duration answerWithin;

  Terminal(Path device) {
    this(device, ANSWER_WITHIN);
  }

  Terminal(Path device, Duration answerWithin) {
    this.device = device;
    this.answerWithin = answerWithin;
  }

  /**
   * The terminal {@code HARNESS_TTY} names, else {@code /dev/tty}; none when it says {@code none}.
   */
  public static Optional<Terminal> fromEnvironment() {
    String named = System.getenv(DEVICE_VARIABLE);
    if (named == null || named.isBlank()) {
      return Optional.of(new Terminal(Path.of("/dev/tty")));
    }
    return named.equals("none") ? Optional.empty() : Optional.of(new Terminal(Path.of(named)));
  }

  /**
   * Writes the prompt and reads the answer's line. Empty when the device cannot be opened (a
   * process without a controlling terminal gets "No such device or address"), when no line comes
   * within the time allowed, when the caller cancels, or when input ends first: the caller then
   * denies.
   */
  Optional<String> ask(String prompt, Cancellation cancellation) {
    // One question at a time on the device: two at once could each read the other's answer.
    synchronized (SPEAKING) {
      try (OutputStream out = new FileOutputStream(device.toFile(), true);
          InputStream in = new FileInputStream(device.toFile())) {
        return answer(in, out, prompt, cancellation, !Files.isRegularFile(device));
      } catch (IOException e) {
        return Optional.empty();
      }
    }
  }

  /** Shows {@code text} and asks nothing; false when the device cannot be opened. */
  boolean tell(String text) {
    // Not behind a question being asked (up to a minute): what it shows reads no answer.
    try (OutputStream out = new FileOutputStream(device.toFile(), true)) {
      out.write((text + System.lineSeparator()).getBytes(StandardCharsets.UTF_8));
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** Held while a question is asked on the device, by every terminal of the process. */
  private static final Object SPEAKING = new Object();

  /**
   * The conversation itself. A {@code live} device (a terminal) has its pending keys dropped first
   * and is waited on; anything else (a file standing in for one) ends where its bytes end.
   */
  Optional<String> answer(
      InputStream in, OutputStream out, String prompt, Cancellation cancellation, boolean live)
      throws IOException {
    long deadline = System.nanoTime() + answerWithin.toNanos();
    if (live) {
      in.skip(in.available()); // keys typed before the question do not answer it
    }
    out.write(prompt.getBytes(StandardCharsets.UTF_8));
    out.flush();
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    while (line.size() <= MAX_ANSWER) {
      if (cancellation.isCancelled() || System.nanoTime() > deadline) {
        out.write("\n(no answer: denied)\n".getBytes(StandardCharsets.UTF_8));
        out.flush();
        return Optional.empty();
      }
      if (in.available() == 0) {
        if (!live) {
          return Optional.empty();
        }
        try {
          Thread.sleep(50);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return Optional.empty();
        }
        continue;
      }
      int b = in.read();
      if (b < 0) {
        return Optional.empty();
      }
      if (b == '\n' || b == '\r') {
        return Optional.of(line.toString(StandardCharsets.UTF_8));
      }
      line.write(b);
    }
    return Optional.empty(); // no answer is this long
  }

  @Override
  public String toString() {
    return device.toString();
  }
}
