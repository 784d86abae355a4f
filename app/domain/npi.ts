/**
 * National Provider Identifier and tax id checks (837P loops 2010AA and 2310B). Pure.
 *
 * An NPI is 10 digits whose last digit is a Luhn check digit computed over the card-issuer prefix 80840 followed
 * by the first 9 digits (the NPI standard's rule). A tax id (EIN) is 9 digits.
 */
export function isValidNpi(value: string | null | undefined): boolean {
  const npi = (value ?? "").trim();
  if (!/^\d{10}$/.test(npi)) return false;
  return luhnCheckDigit(`80840${npi.slice(0, 9)}`) === Number(npi[9]);
}

/** The Luhn check digit of a string of digits (the digit to append). */
export function luhnCheckDigit(digits: string): number {
  let sum = 0;
  for (let i = digits.length - 1, double = true; i >= 0; i--, double = !double) {
    let d = Number(digits[i]);
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return (10 - (sum % 10)) % 10;
}

/** An NPI from its first 9 digits (demo data and tests). */
export function npiFrom(nineDigits: string): string {
  return `${nineDigits}${luhnCheckDigit(`80840${nineDigits}`)}`;
}

export function isValidTaxId(value: string | null | undefined): boolean {
  return /^\d{9}$/.test((value ?? "").trim());
}

export const NPI_MESSAGE = "Enter a valid 10-digit NPI (its last digit is a check digit).";
export const TAX_ID_MESSAGE = "Enter the 9-digit tax id (EIN), digits only.";
