/** Questions (v4): what a question answers for each option left out. */
export const noOptions = {
  choices: null,
  ratingOptions: null,
  numberOptions: null,
  freeTextOptions: null,
  multi: null,
  dropdown: null,
  required: null,
  conditions: null,
  default: null,
  form_schema: null
} as const
