package dev.periscope.api.browser;

/**
 * A bot wall or challenge the observed page shows, recognised from the page's structure (never by
 * asking the vendor): its {@code kind} ({@link #CAPTCHA} a widget a person must solve, {@link
 * #INTERSTITIAL} a page that stands in front of the site until a check passes, {@link #LOGIN_WALL}
 * a sign-in form laid over the content), its {@code vendor} ({@code recaptcha}, {@code hcaptcha},
 * {@code turnstile}, {@code cloudflare}; {@code ""} when none is recognised), the URL of the frame
 * it runs in without its query ({@code ""} when it is in the page itself), and the ref of its
 * element in the observation (null when it has none listed). An action that cannot go on because of
 * it fails {@link ErrorCode#BROWSER_CHALLENGE}. Since host API 2.5.0.
 *
 * <p>Immutable and thread-safe.
 */
public record PageChallenge(String kind, String vendor, String frame, String ref) {
  public static final String CAPTCHA = "captcha";
  public static final String INTERSTITIAL = "interstitial";
  public static final String LOGIN_WALL = "login_wall";

  public PageChallenge {
    kind = kind == null ? "" : kind;
    vendor = vendor == null ? "" : vendor;
    frame = frame == null ? "" : frame;
  }

  /** What it is, in a few words: {@code "a reCAPTCHA captcha"}, {@code "a login wall"}. */
  public String describe() {
    String who =
        switch (vendor) {
          case "recaptcha" -> "reCAPTCHA ";
          case "hcaptcha" -> "hCaptcha ";
          case "turnstile" -> "Cloudflare Turnstile ";
          case "cloudflare" -> "Cloudflare ";
          default -> vendor.isEmpty() ? "" : vendor + " ";
        };
    String what =
        switch (kind) {
          case INTERSTITIAL -> "challenge page";
          case LOGIN_WALL -> "login wall";
          default -> "captcha";
        };
    return "a " + who + what;
  }
}
