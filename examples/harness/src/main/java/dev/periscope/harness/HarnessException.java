package dev.periscope.harness;

/** A failure the user caused or can fix, shown as its message alone: no stack trace. */
public class HarnessException extends RuntimeException {
  public HarnessException(String message) {
    super(message);
  }

  public HarnessException(String message, Throwable cause) {
    super(message, cause);
  }
}
