package dev.periscope.harness;

import java.io.ByteArrayOutputStream;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The user's terminal, where approval prompts are asked. It is the terminal device itself ({@code /dev/tty}), not
 * standard input and output: under {@code harness mcp} those carry the protocol, and under {@code harness run}
 * they may be redirected. Each prompt opens the device, writes the question and reads one line.
 */
public final class Terminal {
  /** Names the device; {@code none} means there is no terminal, so approvals follow the rules alone. */
  static final String DEVICE_VARIABLE = "HARNESS_TTY";
  private static final int MAX_ANSWER = 256;

  private final Path device;

  Terminal(Path device) {
    this.device = device;
  }

  /** The terminal {@code HARNESS_TTY} names, else {@code /dev/tty}; none when it says {@code none}. */
  public static Optional<Terminal> fromEnvironment() {
    String named = System.getenv(DEVICE_VARIABLE);
    if (named == null || named.isBlank()) {
      return Optional.of(new Terminal(Path.of("/dev/tty")));
    }
    return named.equals("none") ? Optional.empty() : Optional.of(new Terminal(Path.of(named)));
  }

  /**
   * Writes the prompt and reads the answer's line. Empty when the device cannot be opened (a process without a
   * controlling terminal gets "No such device or address") or ends before a line: the caller then denies.
   */
  Optional<String> ask(String prompt) {
    try (OutputStream out = new FileOutputStream(device.toFile(), true);
        InputStream in = new FileInputStream(device.toFile())) {
      out.write(prompt.getBytes(StandardCharsets.UTF_8));
      out.flush();
      ByteArrayOutputStream line = new ByteArrayOutputStream();
      for (int b = in.read(); b != '\n'; b = in.read()) {
        if (b < 0) {
          return line.size() == 0 ? Optional.empty() : Optional.of(line.toString(StandardCharsets.UTF_8));
        }
        if (line.size() < MAX_ANSWER) {
          line.write(b);
        }
      }
      return Optional.of(line.toString(StandardCharsets.UTF_8));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  @Override
  public String toString() {
    return device.toString();
  }
}
