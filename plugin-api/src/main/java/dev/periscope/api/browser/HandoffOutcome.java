package dev.periscope.api.browser;

/**
 * How a handoff ended ({@link BrowserLease#handOff}): who ended it and how, how long the person had
 * the page, and what changed, without a single value: the URL and title before and after, and how
 * many cookies and storage keys were added, removed or changed. The page as the handoff left it is
 * {@code after}. Since host API 2.6.0.
 */
public record HandoffOutcome(
    Ending ending,
    long durationMs,
    String urlBefore,
    String titleBefore,
    String urlAfter,
    String titleAfter,
    int cookiesChanged,
    int storageKeysChanged,
    Observation after) {

  /** How it ended, and so who ended it. */
  public enum Ending {
    /** The person pressed "done". */
    DONE("person"),
    /** The person pressed "give up". */
    GAVE_UP("person"),
    /** Nobody took the page: the host's approval service said no, or has no one to ask. */
    DECLINED("person"),
    /** The time given passed. */
    TIMED_OUT("timeout"),
    /** The agent's call was cancelled. */
    CANCELLED("agent");

    private final String endedBy;

    Ending(String endedBy) {
      this.endedBy = endedBy;
    }

    /** {@code person}, {@code timeout} or {@code agent}. */
    public String endedBy() {
      return endedBy;
    }

    /** As the tools and the transition log name it: {@code done}, {@code gave-up}. */
    public String id() {
      return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }
  }
}
