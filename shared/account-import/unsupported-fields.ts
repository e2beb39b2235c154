// The fields of the published contract's EnergyAccount and its parts that this service does not support:
// each is refused with `field_not_supported` at its attr (account-import.schemas.ts), never dropped.
/** The contract's customer fields this service does not support. */
export const CUSTOMER_NOT_SUPPORTED = [
  'account_roles',
  'alternative_phone_numbers',
  'consents',
  'contact_emails',
  'credit_assessment_id',
  'credit_result',
  'credit_risk_bracket',
  'credit_score',
  'details',
  'label',
  'metadata',
  'portfolio_roles',
  'role',
  'user_details',
  'user_identifier',
] as const;

/** The contract's meter fields this service does not support. */
export const METER_NOT_SUPPORTED = [
  'is_prepay',
  'prepay_customer_reference_number',
  'prepay_details',
  'smart_commissioned_on',
  'smart_device_id',
  'smart_type',
  'last_billed_to_date',
  'units_of_measure',
] as const;

/** The contract's meter-point fields (of either supply type) this service does not support. */
export const METER_POINT_NOT_SUPPORTED = [
  'agents',
  'aq_history',
  'capacity_values',
  'ccl_exemptions',
  'configuration_periods',
  'dc_to_appoint',
  'dr_in_progress',
  'eac_history',
  'et_in_progress',
  'export_type',
  'is_deenergised',
  'last_billed_to_date',
  'ldz',
  'mam_to_appoint',
  'measurement_class',
  'mop_to_appoint',
  'regular_reading_cycle',
  'smart_refusal_interest',
  'smart_site_visit',
  'vat_exemptions',
] as const;

/** The contract's supply-address fields this service does not support. */
export const SUPPLY_ADDRESS_NOT_SUPPORTED = [
  'label',
  'metadata',
  'primary_place_of_residence_since',
  'property_administrators',
  'property_external_identifier',
  'supply_delivery_point_identifier',
] as const;

/** The contract's account fields this service does not support. */
export const ACCOUNT_NOT_SUPPORTED = [
  'account_billing_options',
  'account_campaigns',
  'affiliate_subdomain',
  'billing_address',
  'billing_customer_reference',
  'billing_delivery_point_identifier',
  'business',
  'business_type',
  'commission_contracts',
  'company_number',
  'complaints',
  'consents',
  'contribution_agreements',
  'dd_reference',
  'debt',
  'debts',
  'deposit_agreements',
  'dunning_path',
  'fit',
  'is_managed',
  'is_portfolio_lead',
  'last_payment_review_date',
  'partner_organisations',
  'payment_adequacy_changes',
  'payment_plans',
  'payment_preferences',
  'payment_promises',
  'portfolio',
  'references',
  'smart_read_cycle_day',
  'smart_read_frequency',
  'warm_home_discount',
] as const;
