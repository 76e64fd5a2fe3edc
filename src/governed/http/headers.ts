/** The deprecation headers of governed answers (docs/decisions/B18.md). Request headers are parsed by the operation table. */
import { ConfigurationError } from '../../errors.ts';

/**
 * Marks a resource deprecated (docs/decisions/B18.md): answers carry `Deprecation: true`, `Sunset` when a
 * date is given, and a `Link` to the migration notes when given.
 *
 * @example
 * deprecation: { sunset: '2027-06-30', link: 'https://docs.example.com/migrate-to-v2' }
 */
export interface DeprecationOptions {
  /** When the endpoint goes away: a Date or a date text `Date` parses. */
  sunset?: Date | string;
  /** URL documenting the replacement, sent as `Link: <url>; rel="deprecation"`. */
  link?: string;
}

/** The headers of a deprecation option (empty when not deprecated); validates the option. */
export function deprecationHeaders(option: DeprecationOptions | boolean | undefined, path = 'deprecation'): Record<string, string> {
  if (!option) return {};
  const headers: Record<string, string> = { deprecation: 'true' };
  if (option === true) return headers;
  if (option.sunset !== undefined) {
    const date = option.sunset instanceof Date ? option.sunset : new Date(option.sunset);
    if (Number.isNaN(date.getTime())) throw new ConfigurationError(`${path}.sunset`, 'is not a valid date.');
    headers.sunset = date.toUTCString();
  }
  if (option.link !== undefined) {
    try {
      headers.link = `<${new URL(option.link).href}>; rel="deprecation"`;
    } catch {
      throw new ConfigurationError(`${path}.link`, 'is not a valid URL.');
    }
  }
  return headers;
}
