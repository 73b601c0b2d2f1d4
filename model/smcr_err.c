/* Names and texts for the SMC-R core's API error codes, generated from SMCR_ERR_MAP. */
#include "model/smcr_err.h"

const char *smcr_err_name(int err)
{
	switch (err) {
#define SMCR_ERR_NAME(name, val, text) \
	case (val): return "SMCR_ERR_" #name;
		SMCR_ERR_MAP(SMCR_ERR_NAME)
#undef SMCR_ERR_NAME
	default:
		return "SMCR_ERR_UNKNOWN";
	}
}

const char *smcr_strerror(int err)
{
	switch (err) {
#define SMCR_ERR_TEXT(name, val, text) \
	case (val): return text;
		SMCR_ERR_MAP(SMCR_ERR_TEXT)
#undef SMCR_ERR_TEXT
	default:
		return "unknown error";
	}
}
