package dev.periscope.browser.runtime;

import java.util.Locale;

/**
 * {@code recording}: whether each session is recorded ({@code mode}) and how many bytes its
 * recording may take ({@code budgetBytes}: frames and their text; the oldest frames go first).
 */
public record RecordingSettings(Mode mode, long budgetBytes) {
  /** When a session's recording is kept. */
  public enum Mode {
    /** Never recorded: no frame is taken, nothing is written. */
    OFF,
    /**
     * Recorded as {@link #ALWAYS}, and deleted when an environment of the session closes while no
     * action of the session has failed (an outcome {@code failed} or {@code unknown}, or a fault).
     */
    ON_FAILURE,
    /** Every session's recording is kept until its checkpoint is deleted. */
    ALWAYS;

    /** The mode of a setting's value: off, on-failure, always. */
    public static Mode of(String value) {
      return switch (value) {
        case "off" -> OFF;
        case "on-failure" -> ON_FAILURE;
        case "always" -> ALWAYS;
        default -> throw new IllegalArgumentException(value);
      };
    }

    public String id() {
      return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
  }

  public static RecordingSettings off() {
    return new RecordingSettings(Mode.OFF, 0);
  }
}
