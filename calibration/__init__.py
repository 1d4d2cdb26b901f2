"""Camera and board calibration."""
