/** The product's name, written once: page titles, emails, the admin, the certificates' issuer name. */
export const PRODUCT_NAME = 'Starter Kit'

export const PRODUCT_DESCRIPTION = 'A production-ready starter kit for web applications.'
