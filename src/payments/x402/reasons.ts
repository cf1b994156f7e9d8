/**
 * User-facing sentences for the refusal codes of @x402/evm's exact scheme (and ours).
 *
 * The codes are the facilitator's `invalidReason` / `errorReason` strings; the sentences
 * go into the 402 body's `detail`, so each says what the payer can do about it.
 */

const REASONS: Record<string, string> = {
  // Ours: checked locally before the facilitator is asked.
  malformed_payment: "The PAYMENT-SIGNATURE header is not a valid x402 payment.",
  terms_mismatch:
    "The payment does not match this top-up's terms; request new terms and sign again.",
  amount_mismatch:
    "The payment is for a different amount than this top-up; sign for the amount asked.",
  recipient_mismatch: "The payment is made out to another address; pay the address in the terms.",
  asset_mismatch: "The payment is in another token; pay in the USDC named in the terms.",
  network_mismatch: "The payment is for another network; pay on the network named in the terms.",
  scheme_mismatch: "Only the x402 'exact' scheme is accepted.",
  unsupported_payload: "Only EIP-3009 (transferWithAuthorization) USDC payments are accepted.",
  authorization_expired: "The payment authorization has expired; sign a new one.",
  // @x402/evm exact scheme (EIP-3009).
  invalid_exact_evm_scheme: "Only the x402 'exact' scheme is accepted.",
  invalid_exact_evm_network_mismatch: "The payment is for another network.",
  invalid_exact_evm_missing_eip712_domain: "The payment terms lack the token's EIP-712 domain.",
  invalid_exact_evm_recipient_mismatch: "The payment is made out to another address.",
  invalid_exact_evm_signature: "The payment signature is invalid for this payer, token and chain.",
  invalid_exact_evm_payload_authorization_valid_before:
    "The payment authorization has expired; sign a new one.",
  invalid_exact_evm_payload_authorization_valid_after:
    "The payment authorization is not valid yet; check the payer's clock and sign again.",
  invalid_exact_evm_authorization_value: "The payment amount is invalid.",
  invalid_exact_evm_payload_authorization_value_mismatch:
    "The payment is for a different amount than this top-up.",
  invalid_exact_evm_transaction_failed: "The transfer failed on chain; nothing was taken.",
  invalid_exact_evm_transfer_event_mismatch: "The on-chain transfer did not match the payment.",
  invalid_exact_evm_token_name_mismatch: "The payment was signed for another token (EIP-712 name).",
  invalid_exact_evm_token_version_mismatch:
    "The payment was signed for another token version (EIP-712 version).",
  invalid_exact_evm_eip3009_not_supported: "The token does not support EIP-3009 authorizations.",
  invalid_exact_evm_nonce_already_used:
    "This payment authorization has already been used; sign a new one.",
  invalid_exact_evm_insufficient_balance: "The paying address does not hold enough USDC.",
  invalid_exact_evm_transaction_simulation_failed:
    "The transfer would fail on chain; check the payer's USDC balance and sign again.",
  invalid_exact_evm_failed_to_parse_signature: "The payment signature could not be parsed.",
  asset_not_deployed_contract: "The token named in the payment is not a contract on this chain.",
  unsupported_payload_type: "Only EIP-3009 USDC payments are accepted.",
  invalid_transaction_state: "The transfer did not go through; nothing was taken.",
  eip6492_factory_not_allowed: "Payments from undeployed smart wallets are not accepted.",
  smart_wallet_deployment_failed: "The payer's smart wallet could not be deployed.",
};

/**
 * A sentence for a refusal code. A more specific sentence (e.g. which part of a malformed
 * header is wrong) wins; unknown codes still read as a refusal, with the code.
 */
export function describeRefusal(code: string | undefined, specific?: string): string {
  if (specific) return specific;
  if (code && REASONS[code]) return REASONS[code];
  return code ? `The payment was refused (${code}).` : "The payment was refused.";
}
