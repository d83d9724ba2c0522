// TokenSigning module.
