package dev.periscope.api.browser;

import java.util.List;
import java.util.function.UnaryOperator;

/**
 * What a control shows a person beyond its name, as an observation reports it. {@code flags} are
 * short words from a fixed set: {@code checked}, {@code unchecked}, {@code mixed}, {@code
 * expanded}, {@code collapsed}, {@code pressed}, {@code not pressed}, {@code selected}, {@code
 * current} (or {@code current page}, {@code current step}, ... as {@code aria-current} says),
 * {@code required}, {@code invalid}, {@code read-only}, and {@code filled} for a password field, or
 * a field a credential was filled into, that holds something whose value is never shown. {@code
 * value} is what a field holds ({@code null} when it shows none, or must not: a password, a
 * credential's field, a hidden input), cut to a bound, and {@code valueChars} its whole length,
 * larger than {@code value.length()} when it was cut. {@code options} are the options a select or
 * listbox shows chosen, by label. {@code message} is what the page shows beside an invalid field
 * ({@code ""} when none). Disabled is the element's own {@code disabled}. Since host API 2.7.0.
 *
 * <p>Immutable and thread-safe.
 */
public record ElementState(
    List<String> flags, String value, int valueChars, List<String> options, String message) {
  /** No state to report. */
  public static final ElementState NONE = new ElementState(List.of(), null, 0, List.of(), "");

  public ElementState {
    flags = flags == null ? List.of() : List.copyOf(flags);
    options = options == null ? List.of() : List.copyOf(options);
    message = message == null ? "" : message;
    valueChars = value == null ? 0 : Math.max(valueChars, value.length());
  }

  /** Whether there is nothing to report. */
  public boolean isEmpty() {
    return flags.isEmpty() && value == null && options.isEmpty() && message.isEmpty();
  }

  /** Whether the value shown is only the start of what the field holds. */
  public boolean valueCut() {
    return value != null && valueChars > value.length();
  }

  /** This state with every text in it passed through {@code f} (a redaction). */
  public ElementState mapText(UnaryOperator<String> f) {
    return new ElementState(
        flags,
        value == null ? null : f.apply(value),
        valueChars,
        options.stream().map(f).toList(),
        f.apply(message));
  }

  /** This state with its value cut to {@code maxChars}, its whole length kept. */
  public ElementState cutTo(int maxChars) {
    if (value == null || value.length() <= maxChars) {
      return this;
    }
    return new ElementState(flags, value.substring(0, maxChars), valueChars, options, message);
  }
}
